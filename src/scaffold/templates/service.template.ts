import type { ModuleNames } from '../module-names.js';

export const repositoryTemplate = (n: ModuleNames): string => `import { Injectable } from '@nestjs/common';
import { ShopDb } from '../../database/shop-db.js';
import type { ${n.pascal}Item } from './${n.kebab}.schema.js';

/** The \`${n.snake}_items\` table's queries (the same on SQLite and PostgreSQL). */
@Injectable()
export class ${n.pascal}Repository {
  constructor(private readonly db: ShopDb) {}

  all(): Promise<${n.pascal}Item[]> {
    return this.db.selectFrom('${n.snake}_items').selectAll().orderBy('id').execute();
  }

  add(name: string): Promise<${n.pascal}Item> {
    return this.db
      .insertInto('${n.snake}_items')
      .values({ name, created_at: new Date().toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('${n.snake}_items')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}
`;

export const serviceTemplate = (n: ModuleNames): string => `import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ${n.pascal}ItemAddedEvent } from './${n.kebab}-item-added.event.js';
import { ${n.pascal}Repository } from './${n.kebab}.repository.js';
import type { ${n.pascal}Item } from './${n.kebab}.schema.js';

/**
 * ${n.label}'s rules. What the profiler should show goes out as events on the application's bus (the panel's
 * listener records them), so that this class knows nothing of the profiler.
 */
@Injectable()
export class ${n.pascal}Service {
  constructor(
    private readonly items: ${n.pascal}Repository,
    private readonly events: EventEmitter2,
  ) {}

  list(): Promise<${n.pascal}Item[]> {
    return this.items.all();
  }

  async add(name: string): Promise<${n.pascal}Item> {
    const item = await this.items.add(name);
    this.events.emit(${n.pascal}ItemAddedEvent.NAME, new ${n.pascal}ItemAddedEvent(item.id, item.name));
    return item;
  }
}
`;

export const eventTemplate = (
  n: ModuleNames,
): string => `/** An item was added to the ${n.label.toLowerCase()} (${n.pascal}Service), for whoever listens (the profiler panel). */
export class ${n.pascal}ItemAddedEvent {
  static readonly NAME = '${n.snake}.item_added';

  constructor(
    readonly id: number,
    readonly name: string,
  ) {}
}
`;

export const dtoTemplate = (n: ModuleNames): string => `import { Transform } from 'class-transformer';
import { Length } from 'class-validator';

/** A new item: the page's form and \`POST /api/${n.kebab}\` (unknown fields are refused by the validation pipe). */
export class Add${n.pascal}ItemDto {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @Length(1, 100, { message: 'Give the item a name of 1 to 100 characters.' })
  name!: string;
}
`;
