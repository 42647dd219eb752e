import { randomFillSync } from 'node:crypto';

export interface TokenRegistryOptions {
  /**
   * Size of the token space as a power of two (default 24: the 16,777,216 tokens of 6 hexadecimal digits).
   * Smaller spaces (tokens 000000 … 2^bits - 1) are for tests.
   */
  bits?: number;
  /** Random draws in a row that may hit a taken token before the registry declares the store full. */
  maxAttempts?: number;
}

const TOKEN = /^[0-9a-f]{6}$/;
/** Random bytes fetched from the OS at once (1,365 draws of 3 bytes). */
const POOL_BYTES = 4095;

/**
 * Which profile tokens are taken: one bit for each of the 16,777,216 possible 6-hexadecimal tokens (2 MiB),
 * seeded from the store at start. `next()` draws a random free token and marks it, synchronously and in O(1) on
 * the request path (random bytes come from a pool refilled 4 KB at a time, not a crypto call per token).
 */
export class TokenRegistry {
  private readonly bits: Uint8Array;
  private readonly space: number;
  private readonly mask: number;
  private readonly maxAttempts: number;
  private readonly pool = new Uint8Array(POOL_BYTES);
  private position = POOL_BYTES;
  private taken = 0;

  constructor(options: TokenRegistryOptions = {}) {
    const bits = options.bits ?? 24;
    if (!Number.isInteger(bits) || bits < 3 || bits > 24)
      throw new RangeError(`TokenRegistry bits must be an integer from 3 to 24, got ${bits}`);
    this.space = 2 ** bits;
    this.mask = this.space - 1;
    this.bits = new Uint8Array(this.space / 8);
    this.maxAttempts = options.maxAttempts ?? 64;
  }

  /** How many tokens are taken. */
  get size(): number {
    return this.taken;
  }

  /** Marks every token of the store as taken (at start; the iterable may be the store's `allTokens()`). */
  async seed(tokens: AsyncIterable<string> | Iterable<string>): Promise<void> {
    for await (const token of tokens) this.mark(token);
  }

  /** A random token nobody has, now marked as taken. Throws when the store is (nearly) full. */
  next(): string {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const index = this.draw();
      const byte = index >>> 3;
      const bit = 1 << (index & 7);
      if ((this.bits[byte] & bit) === 0) {
        this.bits[byte] |= bit;
        this.taken++;
        return index.toString(16).padStart(6, '0');
      }
    }
    throw new Error(
      `The profile store is full: ${this.maxAttempts} random tokens in a row were taken (${this.taken} of ${this.space} in use). ` +
        'Lower the retention (PROFILER_MAX_PROFILES, PROFILER_MAX_AGE) or clear the profiles.',
    );
  }

  /** Marks a token as taken (a token written by someone else); false if it was already. */
  mark(token: string): boolean {
    const index = this.indexOf(token);
    if (index === null) return false;
    const byte = index >>> 3;
    const bit = 1 << (index & 7);
    if (this.bits[byte] & bit) return false;
    this.bits[byte] |= bit;
    this.taken++;
    return true;
  }

  has(token: string): boolean {
    const index = this.indexOf(token);
    return index !== null && (this.bits[index >>> 3] & (1 << (index & 7))) !== 0;
  }

  /** Frees tokens (after retention or a clear): they may be drawn again. */
  release(tokens: Iterable<string>): void {
    for (const token of tokens) {
      const index = this.indexOf(token);
      if (index === null) continue;
      const byte = index >>> 3;
      const bit = 1 << (index & 7);
      if (this.bits[byte] & bit) {
        this.bits[byte] &= ~bit;
        this.taken--;
      }
    }
  }

  /** Frees every token. */
  releaseAll(): void {
    this.bits.fill(0);
    this.taken = 0;
  }

  private indexOf(token: string): number | null {
    if (typeof token !== 'string' || !TOKEN.test(token)) return null;
    const index = Number.parseInt(token, 16);
    return index < this.space ? index : null;
  }

  /** 24 random bits (masked to the space) from the pool. */
  private draw(): number {
    if (this.position + 3 > POOL_BYTES) {
      randomFillSync(this.pool);
      this.position = 0;
    }
    const p = this.pool;
    const i = this.position;
    this.position += 3;
    return ((p[i] << 16) | (p[i + 1] << 8) | p[i + 2]) & this.mask;
  }
}
