import type { ModuleNames } from '../module-names.js';

export const migrationTemplate = (n: ModuleNames): string => `import type { Migration } from 'kysely/migration';
import { dialectOf, idColumn, type UntypedDb } from '../../../database/migrations/schema-helpers.js';

/** ${n.label}'s items: a name, and when the item was added (ISO 8601 in UTC, as every time in the shop). */
export const createItems: Migration = {
  async up(db: UntypedDb): Promise<void> {
    await db.schema
      .createTable('${n.snake}_items')
      .addColumn('id', 'integer', idColumn(dialectOf(db)))
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('created_at', 'text', (col) => col.notNull())
      .execute();
  },
  async down(db: UntypedDb): Promise<void> {
    await db.schema.dropTable('${n.snake}_items').execute();
  },
};
`;

export const migrationsIndexTemplate = (
  n: ModuleNames,
): string => `import { createItems } from './0001-create-items.js';

/**
 * ${n.label}'s migrations, in order, by the name \`kysely_migration\` records (the module's name first, so that it
 * never collides with the core's or another module's). They run at start and with \`npm run db:migrate\`; a new
 * one is a new file and a new line here.
 */
export const ${n.snake.toUpperCase()}_MIGRATIONS = {
  '${n.kebab}-0001-create-items': createItems,
};
`;

export const schemaTemplate = (n: ModuleNames): string => `import type { Generated, Selectable } from 'kysely';

export interface ${n.pascal}ItemsTable {
  id: Generated<number>;
  name: string;
  /** ISO 8601, UTC. */
  created_at: string;
}

export type ${n.pascal}Item = Selectable<${n.pascal}ItemsTable>;

/** The module's table joins the shop's schema type, so that ShopDb's queries know it. */
declare module '../../database/schema.js' {
  interface ShopDatabase {
    ${n.snake}_items: ${n.pascal}ItemsTable;
  }
}
`;
