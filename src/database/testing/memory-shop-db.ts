import { tmpdir } from 'node:os';
import { DatabaseMigrator } from '../database-migrator.js';
import { createShopDb } from '../database.factory.js';
import type { ShopDb } from '../shop-db.js';

/** For unit specs: a shop database in memory (SQLite), migrated to the latest schema, empty. */
export async function memoryShopDb(): Promise<ShopDb> {
  const db = createShopDb('sqlite::memory:', { baseDir: tmpdir() });
  await new DatabaseMigrator(db, 'sqlite::memory:').migrateToLatest();
  return db;
}
