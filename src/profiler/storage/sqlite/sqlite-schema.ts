import type Database from 'better-sqlite3';

/** The schema version this application reads and writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION = 9;
/** The oldest version migrated in place; an older store is set aside whole (see `olderStore`). */
export const OLDEST_MIGRATED = 7;

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

/** A new store's tables. */
const SCHEMA = `
  -- The list columns, narrow: searching never reads a profile's data. The key is (time << 20) + a write sequence in
  -- that millisecond: the table is in list order and a time range is a key range (sqlite-keys.ts).
  CREATE TABLE profile (
    id INTEGER PRIMARY KEY,
    token TEXT NOT NULL,
    parent TEXT,
    ip TEXT NOT NULL,
    method TEXT NOT NULL COLLATE NOCASE,
    url_id INTEGER NOT NULL,                -- profile_url.id
    time INTEGER NOT NULL,                  -- milliseconds since the epoch
    status INTEGER NOT NULL,
    seq INTEGER,                            -- write order (tokensSince): a late profile of an old request comes after
    kind INTEGER NOT NULL DEFAULT 0,        -- KIND_CODES: 0 an application request, 1 a profiler page, 2 an asset
    duration REAL,
    route TEXT,
    redirected_from TEXT                    -- the token of the redirect this request followed
  );
  -- With the kind: the search page's default (the application's requests) is checked in the index, not the row.
  CREATE INDEX profile_ip ON profile (ip, kind);
  CREATE INDEX profile_method ON profile (method, kind);
  CREATE INDEX profile_status ON profile (status, kind);
  CREATE INDEX profile_url_id ON profile (url_id, kind);
  CREATE INDEX profile_parent ON profile (parent) WHERE parent IS NOT NULL;
  CREATE UNIQUE INDEX profile_seq ON profile (seq);
  CREATE INDEX profile_redirected_from ON profile (redirected_from) WHERE redirected_from IS NOT NULL;
  -- The profiler's pages and the assets, few beside the application's requests: what the search page counts apart.
  CREATE INDEX profile_kind_other ON profile (kind) WHERE kind <> 0;

  -- Each distinct URL once, with its number of profiles; trigrams of it with ASCII letters in lower case (rowid =
  -- profile_url.id), so that a phrase of the needle's trigrams finds exactly the URLs LIKE '%needle%' matches.
  -- External content: write() and prune() add and remove entries explicitly.
  CREATE TABLE profile_url (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    n INTEGER NOT NULL,
    folded TEXT GENERATED ALWAYS AS (lower(url)) VIRTUAL
  );
  CREATE VIRTUAL TABLE profile_url_trigram USING fts5 (
    folded, content = 'profile_url', content_rowid = 'id', tokenize = 'trigram case_sensitive 1', detail = full
  );

  -- The collectors' data (ProfileCodec: a batch's frame, or where in one a profile is), read only by read().
  CREATE TABLE profile_data (id INTEGER PRIMARY KEY, data BLOB NOT NULL);

  -- The last write sequence given (never reused: a cursor stays valid) and the number of profiles stored.
  CREATE TABLE profile_write (last INTEGER NOT NULL, stored INTEGER NOT NULL DEFAULT 0);
  INSERT INTO profile_write (last, stored) VALUES (0, 0);

  -- Tokens in a table of their own: pruning leaves their entries (an entry whose profile is gone matches nothing)
  -- and sweeps them later in token order, where deleting each from an index of random tokens would dirty nearly
  -- every page of it in every prune chunk. profile_token_stale counts the entries left since the last sweep.
  CREATE TABLE profile_token (
    token TEXT NOT NULL PRIMARY KEY,
    id INTEGER NOT NULL                     -- profile.id, while that profile has this token
  ) WITHOUT ROWID;
  CREATE TABLE profile_token_stale (n INTEGER NOT NULL);
  INSERT INTO profile_token_stale (n) VALUES (0);

  -- The full-text index (sqlite-text-parts.ts): contentless FTS5 tables of a kind's profiles written in a day,
  -- profile_text_<kind>_<day>, made as profiles need them and listed here; and the newest time pruning has
  -- reached, at or below which a row may be a pruned profile's.
  CREATE TABLE profile_text_part (kind INTEGER NOT NULL, day INTEGER NOT NULL, PRIMARY KEY (kind, day)) WITHOUT ROWID;
  CREATE TABLE profile_text_floor (time INTEGER NOT NULL);
  INSERT INTO profile_text_floor (time) VALUES (-1);
`;

/** Migrations in place: MIGRATIONS[n] brings user_version n to n + 1, from OLDEST_MIGRATED on. */
const MIGRATIONS: Record<number, string> = {
  7: `
  -- Searches count their matches up to COUNT_CAP + 1 through the indexes: every running total goes, with the URL
  -- skeletons that made a URL's count cheap; the one count kept is the number of profiles stored.
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
  CREATE INDEX profile_kind_other ON profile (kind) WHERE kind <> 0;
  `,
  8: `
  -- A filter's index holds the kind too: counting the application's matches reads no row.
  DROP INDEX profile_ip;
  DROP INDEX profile_method;
  DROP INDEX profile_status;
  DROP INDEX profile_url_id;
  CREATE INDEX profile_ip ON profile (ip, kind);
  CREATE INDEX profile_method ON profile (method, kind);
  CREATE INDEX profile_status ON profile (status, kind);
  CREATE INDEX profile_url_id ON profile (url_id, kind);
  `,
};

/**
 * The version of a store written by a version of the application too old to migrate (1 to OLDEST_MIGRATED - 1,
 * with its profile table), which the connection sets aside whole and replaces by a new store; null for any other.
 */
export function olderStore(db: Database.Database): number | null {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version < 1 || version >= OLDEST_MIGRATED) return null;
  const tables = db.prepare(
    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('profile', 'profile_data')",
  );
  return tables.pluck().get() === 2 ? version : null;
}

/**
 * Creates a new store's tables, or brings a file from OLDEST_MIGRATED on to SCHEMA_VERSION, in one transaction; a
 * newer file, one of an older version, or one whose tables are not those of the version it claims, is refused and
 * left as it was.
 */
export function migrate(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `The profile store has schema version ${version}, newer than this application's (${SCHEMA_VERSION}): use a newer version or another file.`,
    );
  }
  if (version === SCHEMA_VERSION) return;
  try {
    db.transaction(() => {
      if (version === 0) db.exec(SCHEMA);
      for (let v = version; v > 0 && v < SCHEMA_VERSION; v++) {
        if (MIGRATIONS[v] === undefined)
          throw Object.assign(new Error(`no migration from version ${v}`), { code: 'SQLITE_ERROR' });
        db.exec(MIGRATIONS[v]);
      }
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
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
