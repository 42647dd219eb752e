/**
 * Where profile tokens come from (six lowercase hexadecimal characters, unique in the store): the port (an
 * abstract class, so it is also the DI token); the ProfilerModule picks the adapter from PROFILER_DSN, as it picks
 * the store. `next()` runs on the request path: synchronous, no query.
 */
export abstract class TokenAllocator {
  /** Learns the tokens the store holds (after the store opened) and starts what keeps them current. */
  abstract start(): Promise<void>;

  /** A token nobody has, now this process's. */
  abstract next(): string;

  /** Frees tokens whose profiles are gone (retention): they may be drawn again. */
  abstract release(tokens: Iterable<string>): void;

  /** Learns now the tokens other instances wrote; resolves with how many were read (none for a private store). */
  async sync(): Promise<number> {
    return 0;
  }

  /** Tokens sent without a reservation (a shared store whose reservations ran out). */
  get unreserved(): number {
    return 0;
  }

  /** Stops the background work (a crash: nothing more may run). */
  stop(): void {
    // A private store's allocator has none.
  }

  /** Stops, and gives back to the store what this instance holds there (shutdown, before the store closes). */
  async close(): Promise<void> {
    this.stop();
  }
}
