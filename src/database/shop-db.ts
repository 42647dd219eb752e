import { Kysely } from 'kysely';
import type { ShopDatabase } from './schema.js';

/**
 * The shop's database, and its DI token: inject `ShopDb` to query (`this.db.selectFrom('products')…`). An abstract
 * class, so that it is both the type (a `Kysely<ShopDatabase>`) and the key Nest resolves; the DatabaseModule
 * provides the one instance of the application, connected to what DATABASE_URL names and migrated.
 */
export abstract class ShopDb extends Kysely<ShopDatabase> {}
