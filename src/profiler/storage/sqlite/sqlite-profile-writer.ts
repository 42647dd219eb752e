import type { ProfileRecord } from '../profile-record.js';
import { DuplicateTokenError } from '../profiler-storage.js';
import { repeatedTokens } from '../repeated-tokens.js';
import { clampTime, cleanDuration, kindCode, optionalText } from '../search-helpers.js';
import { urlSkeleton } from '../url-skeleton.js';
import { facetWords, indexWords } from '../search/search-words.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { SEQ_BITS } from './sqlite-keys.js';
import type { SqliteTextParts } from './sqlite-text-parts.js';
import type { SqliteRunningTotals, TotalsRow } from './sqlite-running-totals.js';
import type { SqliteTokenStore } from './sqlite-token-store.js';
import type { SqliteTextTotals } from './sqlite-text-totals.js';
import type { TextTotalsRow } from '../search/tracked-queries.js';

/**
 * The write path: a batch of profiles, their blobs already encoded, in one transaction: each distinct URL once
 * (with its trigrams and skeleton when new to the store), the rows with their keys, write sequence and token
 * entries, the blobs, the words of their text in the full-text index of their kind, and the running totals.
 */
export class SqliteProfileWriter {
  constructor(
    private readonly connection: SqliteConnection,
    private readonly totals: SqliteRunningTotals,
    private readonly tokens: SqliteTokenStore,
    private readonly textTotals: SqliteTextTotals,
    private readonly textParts: SqliteTextParts,
  ) {}

  /** The write's transaction (`immediate`: it takes the write lock first, as a crash's last write must). */
  commit(profiles: readonly ProfileRecord[], blobs: Buffer[], immediate: boolean): void {
    const statement = (sql: string) => this.connection.statement(sql);
    const upsertUrl = statement(
      'INSERT INTO profile_url (url, n) VALUES (?, ?) ON CONFLICT (url) DO UPDATE SET n = n + excluded.n RETURNING id, n, skel_id AS skelId',
    );
    const indexUrl = statement('INSERT INTO profile_url_trigram (rowid, folded) VALUES (?, lower(?))');
    const upsertSkeleton = statement(
      'INSERT INTO profile_url_skeleton (skeleton, n) VALUES (?, 0) ON CONFLICT (skeleton) DO UPDATE SET n = n RETURNING id',
    ).pluck();
    const setSkeleton = statement('UPDATE profile_url SET skel_id = ? WHERE id = ?');
    const insert = statement(
      `INSERT INTO profile (id, token, parent, ip, method, url_id, time, status, seq, kind, duration, route, redirected_from)
       VALUES ((SELECT coalesce(max(id) + 1, @time << ${SEQ_BITS}) FROM profile WHERE id >= @time << ${SEQ_BITS} AND id < (@time + 1) << ${SEQ_BITS}),
               @token, @parent, @ip, @method, @urlId, @time, @status, @seq, @kind, @duration, @route, @redirectedFrom)
       RETURNING id`,
    ).safeIntegers(true);
    const insertData = statement('INSERT INTO profile_data (id, data) VALUES (?, ?)');
    // An entry left by a pruned profile is taken over; one of a live profile is not (duplicates() has refused the
    // batch before, this is the constraint's backstop).
    const mapToken = statement(
      `INSERT INTO profile_token (token, id) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET id = excluded.id
       WHERE NOT EXISTS (SELECT 1 FROM profile WHERE id = profile_token.id AND token = profile_token.token)`,
    );
    const tokenId = statement('SELECT id FROM profile_token WHERE token = ?').safeIntegers(true).pluck();
    const transaction = this.connection.db.transaction(() => {
      const duplicates = this.duplicates(profiles);
      if (duplicates.length > 0) throw new DuplicateTokenError(duplicates);
      const lastSeq = statement('UPDATE profile_write SET last = last + ? RETURNING last - ?')
        .pluck()
        .get(profiles.length, profiles.length) as number;
      // Each distinct URL of the batch once (a page reloaded, an endpoint polled: one statement for all its
      // profiles); a URL new to the store (its total was 0) gets its trigrams and its skeleton.
      const perUrl = new Map<string, number>();
      for (const profile of profiles) {
        const url = String(profile.url ?? '');
        perUrl.set(url, (perUrl.get(url) ?? 0) + 1);
      }
      const urlIds = new Map<string, [id: number, skeleton: number]>();
      for (const [url, k] of perUrl) {
        const { id, n, skelId } = upsertUrl.get(url, k) as { id: number; n: number; skelId: number };
        let skeleton = skelId;
        if (n === k) {
          indexUrl.run(id, url);
          skeleton = upsertSkeleton.get(urlSkeleton(url)) as number;
          setSkeleton.run(skeleton, id);
        }
        urlIds.set(url, [id, skeleton]);
      }
      const withText: TextTotalsRow[] = [];
      let floorKey: bigint | undefined;
      const textTables = new Set<string>();
      const counted: TotalsRow[] = profiles.map((profile, i) => {
        const time = clampTime(profile.time);
        const status = Math.trunc(Number(profile.statusCode)) || 0;
        const method = String(profile.method ?? '');
        const ip = String(profile.ip ?? '');
        const [urlId, skeleton] = urlIds.get(String(profile.url ?? ''))!;
        const token = String(profile.token);
        const kind = kindCode(profile.kind);
        const { id } = insert.get({
          time,
          token,
          parent: profile.parent ?? null,
          ip,
          method,
          urlId,
          status,
          seq: lastSeq + i + 1,
          kind,
          duration: cleanDuration(profile.duration),
          route: optionalText(profile.route),
          redirectedFrom: optionalText(profile.redirectedFrom),
        }) as { id: bigint };
        if (mapToken.run(token, id).changes === 0 && tokenId.get(token) !== id) throw new DuplicateTokenError([token]);
        insertData.run(id, blobs[i]);
        const words = indexWords(profile.text ?? []);
        if (words.length > 0) {
          floorKey ??= this.textParts.floorKey();
          this.textParts.insert(
            kind,
            time,
            id,
            [...words, ...facetWords(method, status)].join(' '),
            floorKey,
            textTables,
          );
          withText.push({ time, kind, method: method.toUpperCase(), status, words });
        }
        return { time, kind, method: method.toUpperCase(), status, ip, urlId, skeleton, token };
      });
      this.totals.add(counted);
      this.textTotals.add(withText);
    });
    if (immediate) transaction.immediate();
    else transaction();
  }

  /** Tokens of the batch already stored, or present twice in it. */
  private duplicates(profiles: readonly ProfileRecord[]): string[] {
    const tokens = profiles.map((profile) => profile.token);
    const duplicates = new Set(repeatedTokens(tokens));
    for (const token of this.tokens.liveTokens([...new Set(tokens)])) duplicates.add(token);
    return [...duplicates];
  }
}
