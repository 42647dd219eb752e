import type Database from 'better-sqlite3';
import { PROFILER_URL_PATTERN } from '../search-helpers.js';

/** The hour of the totals of schema versions 1 to 7 (their migrations fill them; version 8 drops them). */
const HOUR = 3_600_000;

/** The schema version this application reads and writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 8;

/** The milliseconds of a full-text table's day. */
export const TEXT_DAY = 86_400_000;

/**
 * A kind's full-text table of a day: FTS5's own tokenizer on words already made (it must split none of them:
 * letters, digits, `_` and the facets' private-use mark are all token characters to unicode61 with these options).
 */
export function textTable(kind: number, day: number): { name: string; create: string } {
  const name = `profile_text_${kind}_${day}`;
  return {
    name,
    create: `CREATE VIRTUAL TABLE IF NOT EXISTS ${name} USING fts5 (words, content = '', contentless_delete = 1, detail = none, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'")`,
  };
}

/** Schema migrations: MIGRATIONS[n] brings user_version n to n + 1. */
const MIGRATIONS: string[] = [
  `
  -- The list columns, narrow: searching never reads a profile's data.
  CREATE TABLE profile (
    id INTEGER PRIMARY KEY,                 -- (time << 20) + write sequence in that millisecond: the list order
    token TEXT NOT NULL,
    parent TEXT,
    ip TEXT NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    url_id INTEGER NOT NULL,                -- profile_url.id
    time INTEGER NOT NULL,                  -- milliseconds since the epoch
    status INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX profile_token ON profile (token);
  CREATE INDEX profile_ip ON profile (ip);
  CREATE INDEX profile_method ON profile (method);
  CREATE INDEX profile_status ON profile (status);
  CREATE INDEX profile_url_id ON profile (url_id);
  CREATE INDEX profile_parent ON profile (parent) WHERE parent IS NOT NULL;

  -- Each distinct URL once, with the number of profiles that have it: requests repeat URLs, so a substring
  -- search reads far fewer trigrams and counts its matches by summing n.
  CREATE TABLE profile_url (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    n INTEGER NOT NULL,
    folded TEXT GENERATED ALWAYS AS (lower(url)) VIRTUAL
  );
  -- Trigrams of the distinct URLs with ASCII letters in lower case, rowid = profile_url.id: a phrase of the
  -- needle's trigrams finds exactly the URLs LIKE '%needle%' matches (LIKE folds ASCII letters only, as lower()).
  -- External content: write() and prune() add and remove entries explicitly.
  CREATE VIRTUAL TABLE profile_url_trigram USING fts5 (
    folded, content = 'profile_url', content_rowid = 'id', tokenize = 'trigram case_sensitive 1', detail = full
  );

  -- The collectors' data, one compressed blob per profile (ProfileCodec), read only by read().
  CREATE TABLE profile_data (
    id INTEGER PRIMARY KEY,                 -- profile.id
    data BLOB NOT NULL
  );

  -- Running totals, so that counting the matches of the common searches never walks a million index entries:
  -- per hour, method and status, and per client IP.
  CREATE TABLE profile_count (
    hour INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (hour, method, status)
  ) WITHOUT ROWID;
  CREATE TABLE profile_ip_count (
    ip TEXT NOT NULL PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  `
  -- Write order (the key is time order: a profile of an older request may be written later), for tokensSince.
  ALTER TABLE profile ADD COLUMN seq INTEGER;
  UPDATE profile SET seq = r.n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM profile) AS r WHERE r.id = profile.id;
  CREATE UNIQUE INDEX profile_seq ON profile (seq);
  -- The last seq given: never reused, even once its profile is pruned or cleared (a cursor stays valid).
  CREATE TABLE profile_write (last INTEGER NOT NULL);
  INSERT INTO profile_write (last) SELECT coalesce(max(seq), 0) FROM profile;
  `,
  `
  -- URL skeletons: each distinct URL with the runs of digits of its path and query replaced by one '#'
  -- (url_skeleton(), a function of the connection; scheme, host and port are kept), with the number of profiles
  -- that have one of its URLs. URLs differ mostly by ids and page numbers: a few thousand skeletons stand for
  -- hundreds of thousands of distinct URLs, and count the matches of a common URL needle (see urlSkeleton()).
  CREATE TABLE profile_url_skeleton (
    id INTEGER PRIMARY KEY,
    skeleton TEXT NOT NULL UNIQUE,
    n INTEGER NOT NULL
  );
  ALTER TABLE profile_url ADD COLUMN skel_id INTEGER NOT NULL DEFAULT 0;
  INSERT INTO profile_url_skeleton (skeleton, n) SELECT url_skeleton(url), sum(n) FROM profile_url GROUP BY 1;
  UPDATE profile_url SET skel_id = s.id FROM profile_url_skeleton s WHERE s.skeleton = url_skeleton(profile_url.url);
  CREATE INDEX profile_url_skel ON profile_url (skel_id);
  -- Running totals per first two characters of the token: a token prefix of one or two characters matches a
  -- sixteenth or a 256th of the store, counted here instead of over tens of thousands of index entries.
  CREATE TABLE profile_token_count (
    prefix TEXT NOT NULL PRIMARY KEY,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO profile_token_count (prefix, n) SELECT substr(token, 1, 2), count(*) FROM profile GROUP BY 1;
  `,
  `
  -- Running totals of the combinations people search (an IP or a URL with a method and a status), so that they
  -- are counted from a few thousand rows instead of reading every row one filter's index leads to: per client IP,
  -- method and status (instead of per IP alone), per distinct URL and per URL skeleton, method and status.
  CREATE TABLE profile_ip_count_new (
    ip TEXT NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (ip, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_ip_count_new (ip, method, status, n) SELECT ip, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3;
  DROP TABLE profile_ip_count;
  ALTER TABLE profile_ip_count_new RENAME TO profile_ip_count;
  CREATE TABLE profile_url_count (
    url_id INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (url_id, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_url_count (url_id, method, status, n) SELECT url_id, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3;
  CREATE TABLE profile_url_skeleton_count (
    skel_id INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (skel_id, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_url_skeleton_count (skel_id, method, status, n)
    SELECT u.skel_id, upper(p.method), p.status, count(*) FROM profile p CROSS JOIN profile_url u ON u.id = p.url_id GROUP BY 1, 2, 3;
  `,
  `
  -- Tokens in a table of their own instead of an index of profile: pruning leaves their entries (an entry whose
  -- profile is gone matches nothing) and sweeps them later, in token order. Tokens are random, so a prune chunk's
  -- hundred thousand deletes from a token index dirtied nearly every page of it, again in every chunk (at a million
  -- profiles, a quarter of a prune's time and a third of what it wrote). \`profile_token_stale\` counts the entries
  -- left since the last sweep.
  DROP INDEX profile_token;
  CREATE TABLE profile_token (
    token TEXT NOT NULL PRIMARY KEY,
    id INTEGER NOT NULL                     -- profile.id, while that profile has this token
  ) WITHOUT ROWID;
  INSERT INTO profile_token (token, id) SELECT token, id FROM profile ORDER BY token;
  CREATE TABLE profile_token_stale (n INTEGER NOT NULL);
  INSERT INTO profile_token_stale (n) VALUES (0);
  `,
  `
  -- What a request was (kind: 0 an application request, 1 a profiler page, 2 an asset; KIND_CODES), how long it
  -- took (milliseconds), its route and the redirect it followed (a token). A profile written before is the
  -- application's unless its URL is a profiler page's (profiler_page(), a function of the connection).
  ALTER TABLE profile ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE profile ADD COLUMN duration REAL;
  ALTER TABLE profile ADD COLUMN route TEXT;
  ALTER TABLE profile ADD COLUMN redirected_from TEXT;
  UPDATE profile SET kind = 1 WHERE url_id IN (SELECT id FROM profile_url WHERE profiler_page(url));
  CREATE INDEX profile_redirected_from ON profile (redirected_from) WHERE redirected_from IS NOT NULL;
  -- The totals that answer the search page's default searches (the application's requests alone, by time,
  -- method, status or client IP) counted per kind too.
  DROP TABLE profile_count;
  CREATE TABLE profile_count (
    hour INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (hour, kind, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_count (hour, kind, method, status, n) SELECT time / ${HOUR}, kind, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3, 4;
  DROP TABLE profile_ip_count;
  CREATE TABLE profile_ip_count (
    ip TEXT NOT NULL,
    kind INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (ip, kind, method, status)
  ) WITHOUT ROWID;
  INSERT INTO profile_ip_count (ip, kind, method, status, n) SELECT ip, kind, upper(method), status, count(*) FROM profile GROUP BY 1, 2, 3, 4;
  `,
  `
  -- The full-text index (sqlite-text-parts.ts): contentless FTS5 tables of a kind's profiles written in a day,
  -- profile_text_<kind>_<day>, made as profiles need them and listed here; each row's rowid is its profile's key.
  -- Pruning drops a day's table once every profile of it is gone (a day partly pruned keeps its rows, which no
  -- search reads: they are below the oldest key). Profiles stored before have no text to index.
  CREATE TABLE profile_text_part (
    kind INTEGER NOT NULL,
    day INTEGER NOT NULL,                   -- time / 86,400,000
    PRIMARY KEY (kind, day)
  ) WITHOUT ROWID;
  -- Running totals of the full-text queries that match many profiles (tracked-queries.ts): each query once (its
  -- terms as queryKey() gives them), with, while its older matches are being counted, the last write sequence
  -- that count covers and the key it has reached (null once done); its matches per hour, kind, method and status;
  -- and the newest time pruning has reached, whose hour and those before the totals no longer count whole.
  CREATE TABLE profile_text_query (
    id INTEGER PRIMARY KEY,
    query TEXT NOT NULL UNIQUE,
    pending_seq INTEGER,
    pending_key INTEGER
  );
  CREATE TABLE profile_text_count (
    query_id INTEGER NOT NULL,
    hour INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    status INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (query_id, hour, kind, method, status)
  ) WITHOUT ROWID;
  CREATE TABLE profile_text_floor (time INTEGER NOT NULL);
  INSERT INTO profile_text_floor (time) VALUES (-1);
  `,
  `
  -- Searches count their matches up to COUNT_CAP + 1 through the indexes: every running total goes, with the URL
  -- skeletons that made a URL's count cheap. \`profile_write.stored\` is the one count kept (retention and the
  -- token sweep read it), added to once per write and lowered once per prune chunk.
  DROP TABLE profile_count;
  DROP TABLE profile_ip_count;
  DROP TABLE profile_url_count;
  DROP TABLE profile_url_skeleton_count;
  DROP TABLE profile_token_count;
  DROP TABLE profile_text_query;
  DROP TABLE profile_text_count;
  DROP INDEX profile_url_skel;
  ALTER TABLE profile_url DROP COLUMN skel_id;
  DROP TABLE profile_url_skeleton;
  ALTER TABLE profile_write ADD COLUMN stored INTEGER NOT NULL DEFAULT 0;
  UPDATE profile_write SET stored = (SELECT count(*) FROM profile);
  `,
];

/**
 * Brings a file to SCHEMA_VERSION (the tests: to `target`) in one transaction; a newer file, or one whose tables
 * are not those of the version it claims, is refused and left as it was.
 */
export function migrate(db: Database.Database, file: string, target = SCHEMA_VERSION): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `The profile store has schema version ${version}, newer than this application's (${SCHEMA_VERSION}): use a newer version or another file.`,
    );
  }
  if (version >= target) return;
  // Functions older migrations call: which profiles were the profiler's pages (version 6), and the URL skeletons
  // of versions 3 to 7, which version 8 drops again (any value does meanwhile).
  const profilerUrl = new RegExp(PROFILER_URL_PATTERN);
  db.function('profiler_page', { deterministic: true }, (url: unknown) => (profilerUrl.test(String(url)) ? 1 : 0));
  db.function('url_skeleton', { deterministic: true }, (_url: unknown) => '');
  try {
    db.transaction(() => {
      for (let v = version; v < target; v++) db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${target}`);
    })();
  } catch (error) {
    // Rolled back: the file is as it was. SQLite's plain SQLITE_ERROR here means its tables are not those of the
    // version it claims (another application's); a full disk, a locked or unreadable file are said as they are.
    if ((error as { code?: unknown }).code !== 'SQLITE_ERROR') throw error;
    throw new Error(
      `${file} is not a profile store of version ${version} (migrating it to version ${SCHEMA_VERSION} failed: ${(error as Error).message}): ` +
        'point PROFILER_DSN to another file, or delete this one if it only holds profiles.',
    );
  }
}

/** The columns each table of the current schema has (those queries name). */
const LAYOUT: Record<string, string[]> = {
  profile: [
    'id',
    'token',
    'parent',
    'ip',
    'method',
    'url_id',
    'time',
    'status',
    'seq',
    'kind',
    'duration',
    'route',
    'redirected_from',
  ],
  profile_url: ['id', 'url', 'n'],
  profile_data: ['id', 'data'],
  profile_token: ['token', 'id'],
  profile_token_stale: ['n'],
  profile_write: ['last', 'stored'],
  profile_url_trigram: ['folded'],
  profile_text_part: ['kind', 'day'],
  profile_text_floor: ['time'],
};

/** A clear error for a file whose tables are not this schema's (another application's, or a development build's). */
export function checkLayout(db: Database.Database, file: string): void {
  for (const [table, columns] of Object.entries(LAYOUT)) {
    const present = new Set(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]);
    const missing = columns.filter((column) => !present.has(column));
    if (missing.length > 0) {
      throw new Error(
        `${file} is not a profile store of this version (table ${table} lacks ${missing.join(', ')}): ` +
          'point PROFILER_DSN to another file, or delete this one if it only holds profiles.',
      );
    }
  }
}
