import type { Migration } from 'kysely/migration';
import * as catalogue from './0001-catalogue.js';
import * as accounts from './0002-accounts.js';
import * as cartsOrders from './0003-carts-orders.js';
import * as rememberMe from './0004-remember-me.js';
import * as orderAddresses from './0005-order-addresses.js';
import * as localProductImages from './0006-local-product-images.js';
import * as rememberMeGrace from './0007-remember-me-grace.js';
import * as rateLimits from './0008-rate-limits.js';

/**
 * Every migration of the shop, oldest first, under the name recorded in `kysely_migration`. A static list (not a
 * folder scan): it works the same from src/ under Jest and from dist/, and the build cannot forget a file. A new
 * migration is a new file here and one line below; names sort in the order they must run.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001-catalogue': catalogue,
  '0002-accounts': accounts,
  '0003-carts-orders': cartsOrders,
  '0004-remember-me': rememberMe,
  '0005-order-addresses': orderAddresses,
  '0006-local-product-images': localProductImages,
  '0007-remember-me-grace': rememberMeGrace,
  '0008-rate-limits': rateLimits,
});
