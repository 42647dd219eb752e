/**
 * The store's side of token allocation, a port of its own beside ProfilerStorage: which tokens the stored profiles
 * have, and (a store shared by several instances) reservations, so that no two instances send the same token.
 * Each store adapter implements it on its own connection; only the token allocators use it.
 */
export abstract class TokenStore {
  /** Which of these tokens are taken. */
  abstract taken(tokens: readonly string[]): Promise<Set<string>>;

  /** Every stored token, to seed the token generator's view of the store (at most 16.7 million). */
  abstract allTokens(): AsyncIterable<string>;

  /**
   * The tokens written after `cursor` (an opaque value returned by an earlier call; null: from the first
   * profile), oldest write first, at most `limit` (default TOKENS_SINCE_PAGE) per call, with the cursor to pass
   * next: call again while `tokens.length` is the limit to page through. Through an index, never a scan.
   */
  abstract tokensSince(cursor: string | null, limit?: number): Promise<TokensSince>;

  /**
   * Reserves tokens for this store instance before they are sent (X-Debug-Token): returns those of `tokens` that
   * nobody had (neither stored nor reserved by another instance), now reserved. A reserved token can be written
   * by this instance only. A private store has no one to race with: the tokens not stored.
   */
  async reserveTokens(tokens: readonly string[]): Promise<string[]> {
    const stored = await this.taken(tokens);
    return [...new Set(tokens)].filter((t) => !stored.has(t));
  }

  /** Gives back reservations this instance will not use (unwritten tokens; stored ones are kept). */
  async releaseTokens(_tokens: readonly string[]): Promise<void> {
    // A private store keeps no reservations.
  }
}

/** Tokens a page of `tokensSince` returns by default. */
export const TOKENS_SINCE_PAGE = 5000;

export interface TokensSince {
  tokens: string[];
  /** Where the next call goes on (the same cursor when nothing new was written). */
  cursor: string | null;
}
