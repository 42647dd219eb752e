import { TOKENS_SINCE_PAGE, TokenStore, type TokensSince } from '../../tokens/token-store.js';
import type { SqliteConnection } from './sqlite-connection.js';
import { BY_TOKEN, yieldToEventLoop } from './sqlite-keys.js';

const TOKEN_PAGE = 20_000;

/** One writer, this process: nothing to reserve. */
export class SqliteTokenStore extends TokenStore {
  constructor(private readonly connection: SqliteConnection) {
    super();
  }

  async taken(tokens: readonly string[]): Promise<Set<string>> {
    if (tokens.length === 0) return new Set();
    return new Set(this.liveTokens(tokens));
  }

  /** Synchronous: the writer asks inside its transaction. */
  liveTokens(tokens: readonly string[]): string[] {
    return this.connection
      .statement(`SELECT t.token FROM ${BY_TOKEN} WHERE t.token IN (SELECT value FROM json_each(?))`)
      .pluck()
      .all(JSON.stringify(tokens)) as string[];
  }

  /** In write order: through the seq index, the rows are read nearly in key order. */
  async *allTokens(): AsyncIterable<string> {
    const page = this.connection
      .statement(`SELECT seq, token FROM profile WHERE seq > ? ORDER BY seq LIMIT ${TOKEN_PAGE}`)
      .raw();
    let after = 0;
    for (;;) {
      this.connection.assertOpen();
      const rows = page.all(after) as [number, string][];
      for (const row of rows) yield row[1];
      if (rows.length < TOKEN_PAGE) return;
      after = rows[rows.length - 1][0];
      await yieldToEventLoop();
    }
  }

  async tokensSince(cursor: string | null, limit = TOKENS_SINCE_PAGE): Promise<TokensSince> {
    this.connection.assertOpen();
    const after = cursor === null ? 0 : Number(cursor);
    if (!Number.isSafeInteger(after)) throw new Error(`Not a cursor of this store: ${cursor}`);
    const rows = this.connection
      .statement('SELECT seq, token FROM profile WHERE seq > ? ORDER BY seq LIMIT ?')
      .all(after, Math.max(1, Math.floor(limit))) as { seq: number; token: string }[];
    return { tokens: rows.map((r) => r.token), cursor: rows.length > 0 ? String(rows[rows.length - 1].seq) : cursor };
  }
}
