import { Injectable } from '@nestjs/common';
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scryptAsync = (password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );

/** scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB of memory per hash), OWASP's floor for scrypt. */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is just that, so give it room. */
const MAX_MEMORY = 64 * 1024 * 1024;

/**
 * Passwords hashed with scrypt (memory-hard, in node:crypto, off the event loop), stored as
 * `scrypt$N$r$p$salt$hash` (base64url), so the cost can rise later and old hashes still verify (and are rehashed).
 */
@Injectable()
export class PasswordHasher {
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scryptAsync(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
    return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [n, r, p] = parts.slice(1, 4).map(Number);
    if (![n, r, p].every(Number.isSafeInteger) || n > 2 ** 20) return false;
    const salt = Buffer.from(parts[4], 'base64url');
    const expected = Buffer.from(parts[5], 'base64url');
    const key = await scryptAsync(password, salt, expected.length, {
      N: n,
      r,
      p,
      maxmem: Math.max(MAX_MEMORY, 256 * n * r),
    });
    return timingSafeEqual(key, expected);
  }

  /** Whether a stored hash was made with weaker parameters than today's. */
  needsRehash(stored: string): boolean {
    const [scheme, n, r, p] = stored.split('$');
    return scheme !== 'scrypt' || Number(n) < N || Number(r) < R || Number(p) < P;
  }

  /**
   * Verifies against a fixed dummy hash: a login for an unknown email takes as long as one for a known email,
   * so the response time does not tell which emails have accounts.
   */
  async burn(password: string): Promise<void> {
    this.dummy ??= this.hash('not a password');
    await this.verify(password, await this.dummy);
  }

  private dummy: Promise<string> | undefined;
}
