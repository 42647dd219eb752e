/** The statements of a prune chunk and of the token sweep: run on the store's connection, or in the PruneWorker. */
import { HOUR } from '../search/hours.js';
import { MAX_ID } from './sqlite-keys.js';

/**
 * The running totals per key × method × status (schema version 4; the IPs' per kind too, version 6): table, and
 * the columns of temp.profile_gone it counts by before method and status. A prune chunk lowers each with the
 * same two statements.
 */
const KEY_TOTALS = [
  ['profile_ip_count', ['ip', 'kind']],
  ['profile_url_count', ['url_id']],
  ['profile_url_skeleton_count', ['skel_id']],
] as const;

/**
 * A prune chunk: the profiles going (the oldest, consecutive keys) are first copied into the temporary table
 * profile_gone, with their URL's skeleton; then every running total, URL and skeleton count is lowered by one
 * grouped statement each, the URLs and skeletons no profile has any more leave (the URLs their trigram index
 * too), and the profiles and their data are deleted as one key range.
 */
export const PRUNE_SETUP_SQL = `
  CREATE TEMP TABLE IF NOT EXISTS profile_gone (
    id INTEGER PRIMARY KEY, token TEXT, ip TEXT, kind INTEGER, method TEXT COLLATE NOCASE, url_id INTEGER, skel_id INTEGER, status INTEGER, time INTEGER
  )`;
export const PRUNE_TAKE_SQL = `
  INSERT INTO temp.profile_gone (id, token, ip, kind, method, url_id, skel_id, status, time)
  SELECT p.id, p.token, p.ip, p.kind, p.method, p.url_id, u.skel_id, p.status, p.time
  FROM profile p CROSS JOIN profile_url u ON u.id = p.url_id
  WHERE p.id <= ? ORDER BY p.id LIMIT ?`;
export const PRUNE_CHUNK_SQL = [
  `UPDATE profile_count SET n = n - g.k
   FROM (SELECT time / ${HOUR} AS hour, kind, method, status, count(*) AS k FROM temp.profile_gone GROUP BY 1, 2, 3, 4) AS g
   WHERE profile_count.hour = g.hour AND profile_count.kind = g.kind AND profile_count.method = g.method AND profile_count.status = g.status`,
  `DELETE FROM profile_count WHERE n <= 0
   AND hour BETWEEN (SELECT min(time) / ${HOUR} FROM temp.profile_gone) AND (SELECT max(time) / ${HOUR} FROM temp.profile_gone)`,
  ...KEY_TOTALS.flatMap(([table, columns]) => {
    const keys = [...columns, 'method', 'status'];
    return [
      `UPDATE ${table} SET n = n - g.k
       FROM (SELECT ${keys.join(', ')}, count(*) AS k FROM temp.profile_gone GROUP BY ${keys.map((_, i) => i + 1).join(', ')}) AS g
       WHERE ${keys.map((key) => `${table}.${key} = g.${key}`).join(' AND ')}`,
      `DELETE FROM ${table} WHERE ${columns[0]} IN (SELECT ${columns[0]} FROM temp.profile_gone) AND n <= 0`,
    ];
  }),
  `UPDATE profile_token_count SET n = n - g.k
   FROM (SELECT substr(token, 1, 2) AS prefix, count(*) AS k FROM temp.profile_gone GROUP BY 1) AS g WHERE profile_token_count.prefix = g.prefix`,
  'DELETE FROM profile_token_count WHERE n <= 0',
  'UPDATE profile_url SET n = n - g.k FROM (SELECT url_id, count(*) AS k FROM temp.profile_gone GROUP BY url_id) AS g WHERE profile_url.id = g.url_id',
  `UPDATE profile_url_skeleton SET n = n - g.k
   FROM (SELECT skel_id, count(*) AS k FROM temp.profile_gone GROUP BY skel_id) AS g WHERE profile_url_skeleton.id = g.skel_id`,
  `INSERT INTO profile_url_trigram (profile_url_trigram, rowid, folded)
   SELECT 'delete', id, lower(url) FROM profile_url WHERE id IN (SELECT url_id FROM temp.profile_gone) AND n <= 0`,
  'DELETE FROM profile_url WHERE id IN (SELECT url_id FROM temp.profile_gone) AND n <= 0',
  'DELETE FROM profile_url_skeleton WHERE id IN (SELECT skel_id FROM temp.profile_gone) AND n <= 0',
  // The tracked full-text queries' totals are not lowered: their hours up to the newest pruned are no longer read
  // (SqliteTextTotals.count), and those before it go. The full-text index keeps the profiles' rows (SqliteTextParts
  // drops a day's tables once it is empty): the floor says which rows to check against the profiles. The newest
  // time gone is the newest key's (keys are in time order).
  'UPDATE profile_text_floor SET time = max(time, (SELECT time FROM temp.profile_gone ORDER BY id DESC LIMIT 1))',
  `DELETE FROM profile_text_count WHERE query_id IN (SELECT id FROM profile_text_query)
   AND hour < (SELECT time FROM temp.profile_gone ORDER BY id DESC LIMIT 1) / ${HOUR}`,
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
/** The lower bounds of the sweep's ranges of tokens (hex tokens spread evenly over them; any other string falls in one). */
export const TOKEN_SWEEP_BOUNDS = ['', ...'123456789abcdef'];
/** A sweep runs once this many entries are stale, or a tenth of the stored profiles if more. */
export const TOKEN_SWEEP_MIN = 1000;
