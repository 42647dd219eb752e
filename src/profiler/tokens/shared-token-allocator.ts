import { TokenAllocator } from './token-allocator.js';
import { TokenPoller } from './token-poller.js';
import { TokenRegistry } from './token-registry.js';
import { TokenReservations } from './token-reservations.js';
import type { TokenStore } from './token-store.js';

/**
 * The tokens of a store several instances write (PostgreSQL), each drawing from its own TokenRegistry: the registry
 * learns the tokens the other instances write (TokenPoller, every few seconds), so drawing one of them is rare; and
 * tokens are reserved in the store before they are sent (TokenReservations), so the rare draw of a token another
 * instance holds is refused by the store while reserving, before any response carries it, never at the write,
 * after the response has gone.
 */
export class SharedTokenAllocator extends TokenAllocator {
  private readonly registry = new TokenRegistry();
  private readonly poller: TokenPoller;
  private readonly reservations: TokenReservations;

  constructor(
    store: TokenStore,
    private readonly onError: (error: unknown) => void,
  ) {
    super();
    this.poller = new TokenPoller(store, this.registry, { onError });
    this.reservations = new TokenReservations(store, this.registry, { onError });
  }

  async start(): Promise<void> {
    await this.poller.seed();
    this.poller.start();
    // Not fatal: without reservations, tokens are drawn unreserved (reported) until the store answers.
    await this.reservations.start().catch(this.onError);
  }

  next(): string {
    return this.reservations.next();
  }

  release(tokens: Iterable<string>): void {
    this.registry.release(tokens);
  }

  override sync(): Promise<number> {
    return this.poller.run();
  }

  override get unreserved(): number {
    return this.reservations.unreserved;
  }

  override stop(): void {
    this.poller.stop();
  }

  /** Gives back the reservations not used. */
  override async close(): Promise<void> {
    this.stop();
    await this.reservations.close();
  }
}
