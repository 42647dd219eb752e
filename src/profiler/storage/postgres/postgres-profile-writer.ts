import type { ProfileCodec } from '../profile-codec.js';
import type { ProfileRecord } from '../profile-record.js';
import { DuplicateTokenError, repeatedTokens } from '../profiler-storage.js';
import { clampTime, cleanDuration, kindCode } from '../search-helpers.js';
import { indexWords } from '../search/search-words.js';
import { inTransaction } from './postgres-client.js';
import type { PostgresConnection } from './postgres-connection.js';
import { clampStatus, nullableText, pgText } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';
import type { PostgresTokenStore } from './postgres-token-store.js';
import type { PostgresTextParts } from './postgres-text-parts.js';

/** check_violation: "no partition of relation … found for row". */
const NO_PARTITION = '23514';

/** A batch in one transaction: its tokens claimed, the rows, then the blobs and words in one statement. */
export class PostgresProfileWriter {
  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
    private readonly tokens: PostgresTokenStore,
    private readonly codec: ProfileCodec,
    private readonly textParts: PostgresTextParts,
  ) {}

  async write(profiles: readonly ProfileRecord[]): Promise<void> {
    if (profiles.length === 0) return;
    const pool = this.connection.pool;
    const tokens = profiles.map((p) => String(p.token));
    const repeated = repeatedTokens(tokens);
    if (repeated.length > 0) {
      // As SQLite does, the error names these and the batch's tokens already stored.
      const stored = await this.tokens.taken([...new Set(tokens)]);
      throw new DuplicateTokenError(orderedAsIn(tokens, new Set([...repeated, ...stored])));
    }
    const groups = await this.codec.encodeBatch(profiles.map((profile) => profile.json ?? profile.data ?? {}));
    const methods = profiles.map((p) => pgText(String(p.method ?? '')));
    const times = profiles.map((p) => clampTime(p.time));
    const statuses = profiles.map((p) => clampStatus(p.statusCode));
    const kinds = profiles.map((p) => kindCode(p.kind));
    // array_to_tsvector takes them as they are (no stemming: the SQLite store's words). No word holds a space.
    const words = profiles.map((p) => (p.words ?? indexWords(p.text ?? []).join(' ')) || null);
    const transaction = () =>
      inTransaction(pool, async (client) => {
        const held = await this.tokens.claim(client, tokens);
        const inserted = await client.query<{ id: number; token: string }>(
          `INSERT INTO ${this.tables.profile} (token, parent, ip, method, url, time, status, kind, duration, route, redirected_from)
         SELECT token, parent, ip, method, url, time, status, kind, duration, route, redirected_from
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int4[], $8::int2[], $9::float8[], $10::text[], $11::text[])
           WITH ORDINALITY AS batch (token, parent, ip, method, url, time, status, kind, duration, route, redirected_from, n)
         ORDER BY n
         ON CONFLICT (token) DO NOTHING
         RETURNING id, token`,
          [
            tokens.map(pgText),
            profiles.map((p) => (p.parent == null ? null : pgText(String(p.parent)))),
            profiles.map((p) => pgText(String(p.ip ?? ''))),
            methods,
            profiles.map((p) => pgText(String(p.url ?? ''))),
            times,
            statuses,
            kinds,
            profiles.map((p) => cleanDuration(p.duration)),
            profiles.map((p) => nullableText(p.route)),
            profiles.map((p) => nullableText(p.redirectedFrom)),
          ],
        );
        if (inserted.rows.length < profiles.length) {
          // Taken by another instance (or committed since the tokens were drawn): nothing of the batch stays.
          const written = new Set(inserted.rows.map((r) => r.token));
          throw new DuplicateTokenError(tokens.filter((t) => !written.has(pgText(t))));
        }
        await this.tokens.settle(client, held);
        const byToken = new Map(inserted.rows.map((r) => [r.token, BigInt(r.id)]));
        const ids = tokens.map((t) => byToken.get(pgText(t))!);
        // Each frame carried by the profile pruning takes last: by time, then id.
        const blobs = this.codec.blobs(groups, ids, (a, b) => (times[a] - times[b] || Number(ids[a] - ids[b])) > 0);
        await client.query(
          `WITH data AS (INSERT INTO ${this.tables.data} (id, data) SELECT * FROM unnest($1::int8[], $2::bytea[]))
         INSERT INTO ${this.tables.text} (id, time, kind, method, status, doc)
           SELECT id, time, kind, upper(method COLLATE "C"), status, array_to_tsvector(string_to_array(words, ' '))
           FROM unnest($1::int8[], $3::int8[], $4::int2[], $5::text[], $6::int4[], $7::text[]) AS w (id, time, kind, method, status, words)
           WHERE words IS NOT NULL`,
          [ids.map(String), blobs, times, kinds, methods, statuses, words],
        );
      });
    const dayTimes = times.filter((_, i) => words[i] !== null);
    await this.textParts.ensure(pool, dayTimes);
    try {
      await transaction();
    } catch (error) {
      // A day's table another instance dropped since (a late profile of a day pruned): made again, once.
      if ((error as { code?: unknown }).code !== NO_PARTITION) throw error;
      this.textParts.forget();
      await this.textParts.ensure(pool, dayTimes);
      await transaction();
    }
  }
}

/** The tokens of `tokens` that are in `set`, each once, in the batch's order. */
function orderedAsIn(tokens: string[], set: Set<string>): string[] {
  return [...new Set(tokens.filter((t) => set.has(t)))];
}
