import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { TOKENS_SINCE_PAGE, TokenStore, type TokensSince } from '../../tokens/token-store.js';
import { DuplicateTokenError } from '../profiler-storage.js';
import type { PostgresConnection } from './postgres-connection.js';
import { pgText, validTokens } from './postgres-sql.js';
import type { PostgresTables } from './postgres-tables.js';

const TOKEN_PAGE = 20_000;
/** Far beyond how long an instance keeps a reservation or a profile waits in the buffer: none in use is removed. */
const ABANDONED_RESERVATION = '1 day';

/** Tokens reserved and not yet written, each by one instance (`owner`); a write claims them in its transaction. */
export class PostgresTokenStore extends TokenStore {
  /** Random: an instance restarted is a new owner. */
  readonly owner = randomBytes(8).toString('hex');

  constructor(
    private readonly connection: PostgresConnection,
    private readonly tables: PostgresTables,
  ) {
    super();
  }

  async taken(tokens: readonly string[]): Promise<Set<string>> {
    const pool = this.connection.pool;
    const valid = validTokens(tokens);
    if (valid.length === 0) return new Set();
    const { rows } = await pool.query<{ token: string }>(
      `SELECT token FROM ${this.tables.profile} WHERE token = ANY($1::text[])`,
      [valid],
    );
    return new Set(rows.map((r) => r.token));
  }

  async *allTokens(): AsyncIterable<string> {
    let after = '';
    for (;;) {
      const { rows } = await this.connection.pool.query<{ token: string }>(
        `SELECT token FROM ${this.tables.profile} WHERE token > $1 ORDER BY token LIMIT ${TOKEN_PAGE}`,
        [after],
      );
      for (const { token } of rows) yield token;
      if (rows.length < TOKEN_PAGE) return;
      after = rows[rows.length - 1].token;
    }
  }

  /** A commit behind the cursor (ids are taken at insert) costs a refused reservation at most, never a profile. */
  async tokensSince(cursor: string | null, limit = TOKENS_SINCE_PAGE): Promise<TokensSince> {
    const pool = this.connection.pool;
    const after = cursor === null ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after)) throw new Error(`Not a cursor of this store: ${cursor}`);
    const { rows } = await pool.query<{ id: number; token: string }>(
      `SELECT id, token FROM ${this.tables.profile} WHERE id > $1 ORDER BY id LIMIT $2`,
      [after, Math.max(1, Math.floor(limit))],
    );
    return { tokens: rows.map((r) => r.token), cursor: rows.length > 0 ? String(rows[rows.length - 1].id) : cursor };
  }

  /**
   * Reserves by the primary key, then gives back the tokens already stored: the second statement sees every write
   * that claimed a token while the insert waited on its row.
   */
  override async reserveTokens(tokens: readonly string[]): Promise<string[]> {
    const pool = this.connection.pool;
    const valid = [...new Set(validTokens(tokens))];
    if (valid.length === 0) return [];
    const { rows } = await pool.query<{ token: string }>(
      `INSERT INTO ${this.tables.token} (token, owner) SELECT unnest($1::text[]), $2 ON CONFLICT (token) DO NOTHING RETURNING token`,
      [valid, this.owner],
    );
    if (rows.length === 0) return [];
    const reserved = new Set(rows.map((r) => r.token));
    const { rows: stored } = await pool.query<{ token: string }>(
      `DELETE FROM ${this.tables.token} t USING ${this.tables.profile} p WHERE t.token = ANY($1::text[]) AND t.owner = $2 AND p.token = t.token RETURNING t.token`,
      [[...reserved], this.owner],
    );
    for (const { token } of stored) reserved.delete(token);
    return valid.filter((t) => reserved.has(t));
  }

  override async releaseTokens(tokens: readonly string[]): Promise<void> {
    const valid = validTokens(tokens);
    if (valid.length === 0) return;
    await this.connection.pool.query(
      `DELETE FROM ${this.tables.token} WHERE token = ANY($1::text[]) AND owner = $2 AND NOT stored`,
      [valid, this.owner],
    );
  }

  /**
   * Our reservations go (the profile holds the token now); any other token gets a row until settle(), refused
   * (DuplicateTokenError) if another instance holds it. A stored token, the profile's unique constraint refuses.
   */
  async claim(client: pg.PoolClient, tokens: readonly string[]): Promise<string[]> {
    const mine = await client.query<{ token: string }>(
      `DELETE FROM ${this.tables.token} WHERE token = ANY($1::text[]) AND owner = $2 AND NOT stored RETURNING token`,
      [tokens.map(pgText), this.owner],
    );
    const claimed = new Set(mine.rows.map((r) => r.token));
    const others = tokens.map(pgText).filter((t) => !claimed.has(t));
    if (others.length > 0) {
      const taken = await client.query<{ token: string }>(
        `INSERT INTO ${this.tables.token} (token, owner) SELECT token, $2 FROM unnest($1::text[]) AS token
         ORDER BY token -- the same order in every batch: two claims of shared tokens queue, never deadlock
         ON CONFLICT (token) DO NOTHING RETURNING token`,
        [others, this.owner],
      );
      if (taken.rows.length < others.length) {
        const ours = new Set(taken.rows.map((r) => r.token));
        throw new DuplicateTokenError(tokens.filter((t) => !claimed.has(pgText(t)) && !ours.has(pgText(t))));
      }
    }
    return others;
  }

  async settle(client: pg.PoolClient, held: readonly string[]): Promise<void> {
    if (held.length > 0)
      await client.query(`DELETE FROM ${this.tables.token} WHERE token = ANY($1::text[]) AND owner = $2`, [
        held,
        this.owner,
      ]);
  }

  async dropAbandoned(pool: pg.Pool): Promise<void> {
    await pool.query(
      `DELETE FROM ${this.tables.token} WHERE NOT stored AND reserved_at < now() - interval '${ABANDONED_RESERVATION}'`,
    );
  }

  /** Reservations of instances still running stay theirs; rows of stored tokens are an older layout's. */
  async clearStored(client: pg.PoolClient): Promise<void> {
    await client.query(`DELETE FROM ${this.tables.token} WHERE stored`);
  }

  async releaseOwn(pool: pg.Pool): Promise<void> {
    try {
      await pool.query(`DELETE FROM ${this.tables.token} WHERE owner = $1 AND NOT stored`, [this.owner]);
    } catch (error) {
      this.connection.logger.warn(
        `The PostgreSQL profile store ${this.connection.description} kept this instance's unused token reservations: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }
}
