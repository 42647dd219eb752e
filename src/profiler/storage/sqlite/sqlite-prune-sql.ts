/** The statements of a prune chunk and of the token sweep (SqliteRetention). */
import { MAX_ID } from './sqlite-keys.js';

/**
 * A prune chunk: the profiles going (the oldest, consecutive keys) are first copied into the temporary table
 * profile_gone; then the URLs' profile counts and the stored count are lowered, the URLs no profile has any more
 * leave (with their trigrams), and the profiles and their data are deleted as one key range. The take's
 * parameters: `last` the newest key that may go, `atMost` the chunk's size.
 */
export const PRUNE_SETUP_SQL = `
  CREATE TEMP TABLE IF NOT EXISTS profile_gone (id INTEGER PRIMARY KEY, token TEXT, url_id INTEGER, time INTEGER)`;
export const PRUNE_TAKE_SQL = `
  INSERT INTO temp.profile_gone (id, token, url_id, time)
  SELECT id, token, url_id, time FROM profile
  WHERE id <= @last ORDER BY id LIMIT @atMost`;
export const PRUNE_CHUNK_SQL = [
  'UPDATE profile_write SET stored = stored - (SELECT count(*) FROM temp.profile_gone)',
  'UPDATE profile_url SET n = n - g.k FROM (SELECT url_id, count(*) AS k FROM temp.profile_gone GROUP BY url_id) AS g WHERE profile_url.id = g.url_id',
  `INSERT INTO profile_url_trigram (profile_url_trigram, rowid, folded)
   SELECT 'delete', id, lower(url) FROM profile_url WHERE id IN (SELECT url_id FROM temp.profile_gone) AND n <= 0`,
  'DELETE FROM profile_url WHERE id IN (SELECT url_id FROM temp.profile_gone) AND n <= 0',
  // The full-text index keeps the profiles' rows (SqliteTextParts drops a day's tables once it is empty): the
  // floor says which rows to check against the profiles. The newest time gone is the newest key's.
  'UPDATE profile_text_floor SET time = max(time, (SELECT time FROM temp.profile_gone ORDER BY id DESC LIMIT 1))',
  'DELETE FROM profile WHERE id BETWEEN (SELECT min(id) FROM temp.profile_gone) AND (SELECT max(id) FROM temp.profile_gone)',
  'DELETE FROM profile_data WHERE id BETWEEN (SELECT min(id) FROM temp.profile_gone) AND (SELECT max(id) FROM temp.profile_gone)',
];
/**
 * Deletes the profile_token entries of pruned profiles in a range of tokens (one transaction per range, each
 * touching only its part of the table): pruning takes the oldest keys, so an entry below the oldest key left is
 * stale. (An entry can also be stale above it, its key reused or a late profile written below: it matches
 * nothing, and goes once pruning passes its key.) The last range, unbounded above, resets the count.
 */
const STALE_TOKEN = `id < (SELECT coalesce(min(id), ${MAX_ID}) FROM profile)`;
export const TOKEN_SWEEP_SQL = {
  range: `DELETE FROM profile_token WHERE token >= ? AND token < ? AND ${STALE_TOKEN}`,
  from: `DELETE FROM profile_token WHERE token >= ? AND ${STALE_TOKEN}`,
  done: 'UPDATE profile_token_stale SET n = 0',
};
/**
 * The lower bounds of the sweep's ranges: the 256 two-digit prefixes of hex tokens (any other string falls in one),
 * so each range's transaction stays short however large the table.
 */
export const TOKEN_SWEEP_BOUNDS = ['', ...Array.from({ length: 255 }, (_, i) => (i + 1).toString(16).padStart(2, '0'))];
/** A sweep runs once this many entries are stale, or a tenth of the stored profiles if more. */
export const TOKEN_SWEEP_MIN = 1000;
