import type { EncodedGroup, ProfileCodec } from '../profile-codec.js';
import type { ProfileRecord } from '../profile-record.js';
import { DuplicateTokenError, repeatedTokens } from '../profiler-storage.js';
import { clampTime, cleanDuration, kindCode, optionalText } from '../search-helpers.js';
import { facetWords, indexWords } from '../search/search-words.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { SEQ_BITS } from './sqlite-keys.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';
import type { SqliteTokenStore } from './sqlite-token-store.js';

/**
 * The write path: a batch of profiles, their JSON already in compressed frames, in one transaction: each distinct URL
 * once (with its trigrams when new to the store), the rows with their keys, write sequence and token entries, the
 * blobs (ProfileCodec.blobs), and the words of their text in the full-text index of their kind.
 */
export class SqliteProfileWriter {
  /** The highest key this writer has written: the next key of a profile no older is known without a query. */
  private lastKey: bigint | null = null;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly tokens: SqliteTokenStore,
    private readonly textParts: SqliteTextParts,
    private readonly codec: ProfileCodec,
  ) {}

  /** The write's transaction (`immediate`: it takes the write lock first, as a crash's last write must). */
  commit(profiles: readonly ProfileRecord[], groups: readonly EncodedGroup[], immediate: boolean): void {
    const statement = (sql: string) => this.connection.statement(sql);
    const upsertUrl = statement(
      'INSERT INTO profile_url (url, n) VALUES (?, ?) ON CONFLICT (url) DO UPDATE SET n = n + excluded.n RETURNING id, n',
    ).raw();
    const indexUrl = statement('INSERT INTO profile_url_trigram (rowid, folded) VALUES (?, lower(?))');
    const columns = 'id, token, parent, ip, method, url_id, time, status, seq, kind, duration, route, redirected_from';
    const values =
      '@token, @parent, @ip, @method, @urlId, @time, @status, @seq, @kind, @duration, @route, @redirectedFrom';
    // The key this writer expects to be free; taken by another process meanwhile, the row goes in below instead.
    const insertAt = statement(`INSERT INTO profile (${columns}) VALUES (@id, ${values}) ON CONFLICT (id) DO NOTHING`);
    const insert = statement(
      `INSERT INTO profile (${columns})
       VALUES ((SELECT coalesce(max(id) + 1, @time << ${SEQ_BITS}) FROM profile WHERE id >= @time << ${SEQ_BITS} AND id < (@time + 1) << ${SEQ_BITS}),
               ${values})
       RETURNING id`,
    ).safeIntegers(true);
    const insertData = statement('INSERT INTO profile_data (id, data) VALUES (?, ?)');
    // An entry left by a pruned profile is taken over; one of a live profile is not: the batch is refused. Tokens
    // are drawn free (TokenRegistry), so this is checked here, as the rows go in, not by a query before them.
    const mapToken = statement(
      `INSERT INTO profile_token (token, id) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET id = excluded.id
       WHERE NOT EXISTS (SELECT 1 FROM profile WHERE id = profile_token.id AND token = profile_token.token)`,
    );
    const tokenId = statement('SELECT id FROM profile_token WHERE token = ?').safeIntegers(true).pluck();
    const transaction = this.connection.db.transaction(() => {
      const repeated = repeatedTokens(profiles.map((profile) => profile.token));
      if (repeated.length > 0) throw new DuplicateTokenError(repeated);
      // A read first: should another connection hold the write lock, the write below then fails at once (SQLite
      // does not wait to turn a read transaction into a write one), where waiting out busy_timeout would hold the
      // event loop at every retry.
      const lastSeq = statement('SELECT last FROM profile_write').pluck().get() as number;
      statement('UPDATE profile_write SET last = last + @n, stored = stored + @n').run({ n: profiles.length });
      // Each distinct URL of the batch once (a page reloaded, an endpoint polled: one statement for all its
      // profiles); a URL new to the store (it had no profile) gets its trigrams.
      const urls = profiles.map((profile) => String(profile.url ?? ''));
      const perUrl = new Map<string, number>();
      for (const url of urls) perUrl.set(url, (perUrl.get(url) ?? 0) + 1);
      const urlIds = new Map<string, number>();
      for (const [url, k] of perUrl) {
        const [id, n] = upsertUrl.get(url, k) as [number, number];
        if (n === k) indexUrl.run(id, url);
        urlIds.set(url, id);
      }
      let floorKey: bigint | undefined;
      const textTables = new Set<string>();
      const keys = profiles.map((profile, i) => {
        const time = clampTime(profile.time);
        const status = Math.trunc(Number(profile.statusCode)) || 0;
        const method = String(profile.method ?? '');
        const token = String(profile.token);
        const kind = kindCode(profile.kind);
        const row = {
          id: this.nextKey(time),
          time,
          token,
          parent: profile.parent ?? null,
          ip: String(profile.ip ?? ''),
          method,
          urlId: urlIds.get(urls[i])!,
          status,
          seq: lastSeq + i + 1,
          kind,
          duration: cleanDuration(profile.duration),
          route: optionalText(profile.route),
          redirectedFrom: optionalText(profile.redirectedFrom),
        };
        const id = row.id !== null && insertAt.run(row).changes === 1 ? row.id : (insert.get(row) as { id: bigint }).id;
        if (this.lastKey === null || id > this.lastKey) this.lastKey = id;
        if (mapToken.run(token, id).changes === 0 && tokenId.get(token) !== id) throw new DuplicateTokenError([token]);
        const words = profile.words ?? indexWords(profile.text ?? []).join(' ');
        if (words !== '') {
          floorKey ??= this.textParts.floorKey();
          const facets = facetWords(method, status).join(' ');
          this.textParts.insert(kind, time, id, `${words} ${facets}`, floorKey, textTables);
        }
        return id;
      });
      this.codec.blobs(groups, keys, (a, b) => keys[a] > keys[b]).forEach((blob, i) => insertData.run(keys[i], blob));
    });
    try {
      if (immediate) transaction.immediate();
      else transaction();
    } catch (error) {
      // Rolled back: every token of the batch the store has, or that it holds twice, named at once.
      if (error instanceof DuplicateTokenError) throw new DuplicateTokenError(this.duplicates(profiles));
      throw error;
    }
  }

  /** The key after the last one written, or the millisecond's first; null for a late profile (looked up). */
  private nextKey(time: number): bigint | null {
    const base = BigInt(time) << SEQ_BITS;
    const last = this.lastKey;
    if (last === null || base > last) return base;
    const next = last + 1n;
    return next >> SEQ_BITS === BigInt(time) ? next : null;
  }

  /** Tokens of the batch already stored, or present twice in it. */
  private duplicates(profiles: readonly ProfileRecord[]): string[] {
    const tokens = profiles.map((profile) => profile.token);
    const duplicates = new Set(repeatedTokens(tokens));
    for (const token of this.tokens.liveTokens([...new Set(tokens)])) duplicates.add(token);
    return [...duplicates];
  }
}
