import { TokenAllocator } from './token-allocator.js';
import { TokenRegistry } from './token-registry.js';
import type { TokenStore } from './token-store.js';

/**
 * The tokens of a store this process alone writes (a SQLite file, memory): the in-process TokenRegistry, seeded
 * from the store's tokens at start. Nobody else draws, so nothing is polled or reserved.
 */
export class LocalTokenAllocator extends TokenAllocator {
  private readonly registry = new TokenRegistry();

  constructor(private readonly store: TokenStore) {
    super();
  }

  start(): Promise<void> {
    return this.registry.seed(this.store.allTokens());
  }

  next(): string {
    return this.registry.next();
  }

  release(tokens: Iterable<string>): void {
    this.registry.release(tokens);
  }
}
