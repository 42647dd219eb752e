import { sql } from 'kysely';
import { dialectOf, idColumn, timestampColumn, timestampType, type UntypedDb } from './schema-helpers.js';

/** Categories and products, with the indexes of the catalogue's listings (per category, sorted), slugs and search. */
export async function up(db: UntypedDb): Promise<void> {
  const dialect = dialectOf(db);
  await db.schema
    .createTable('categories')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('slug', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('parent_id', 'integer', (col) => col.references('categories.id').onDelete('set null'))
    .addColumn('position', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('categories_parent_position')
    .on('categories')
    .columns(['parent_id', 'position'])
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'integer', idColumn(dialect))
    .addColumn('slug', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('price_cents', 'integer', (col) => col.notNull())
    .addColumn('stock', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('image_url', 'text')
    .addColumn('category_id', 'integer', (col) => col.notNull().references('categories.id').onDelete('restrict'))
    .addColumn('search_text', 'text', (col) =>
      col
        .generatedAlwaysAs(sql`lower(name || ' ' || description)`)
        .stored()
        .notNull(),
    )
    .addColumn('created_at', timestampType(dialect), timestampColumn(dialect))
    .addColumn('updated_at', timestampType(dialect), timestampColumn(dialect))
    .addCheckConstraint('products_stock_not_negative', sql`stock >= 0`)
    .addCheckConstraint('products_price_not_negative', sql`price_cents >= 0`)
    .execute();
  // A category's page, sorted by name, price or newest; the same over the whole catalogue.
  for (const column of ['name', 'price_cents', 'created_at']) {
    await db.schema
      .createIndex(`products_category_${column}`)
      .on('products')
      .columns(['category_id', column])
      .execute();
    await db.schema.createIndex(`products_${column}`).on('products').column(column).execute();
  }
  // Text search is `search_text LIKE '%term%'` on both dialects; PostgreSQL can index it with trigrams.
  if (dialect === 'postgres' && (await trigramsAvailable(db))) {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    // The operator class lives in the extension's schema, which need not be on the search path.
    const { rows } = await sql<{ schema: string }>`
      SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`.execute(
      db,
    );
    await sql`CREATE INDEX products_search_trgm ON products USING gin (search_text ${sql.id(rows[0].schema, 'gin_trgm_ops')})`.execute(
      db,
    );
  }
}

export async function down(db: UntypedDb): Promise<void> {
  await db.schema.dropTable('products').execute();
  await db.schema.dropTable('categories').execute();
}

/** pg_trgm is installed or installable here (a trusted extension needs CREATE on the database). */
async function trigramsAvailable(db: UntypedDb): Promise<boolean> {
  const { rows } = await sql<{ installed: boolean; available: boolean; creatable: boolean }>`
    SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS installed,
           EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') AS available,
           has_database_privilege(current_database(), 'CREATE') AS creatable`.execute(db);
  const row = rows[0];
  return row !== undefined && (row.installed || (row.available && row.creatable));
}
