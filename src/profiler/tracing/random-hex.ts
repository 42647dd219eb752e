import { randomFillSync } from 'node:crypto';

/** Random bytes read from the system 4 KB at a time: a crypto call per request costs more than the request's ids. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let position = POOL_BYTES;

/** `bytes` random bytes as lower-case hex, from the pool (trace and span ids). */
export function randomHex(bytes: number): string {
  if (position + bytes > POOL_BYTES) {
    randomFillSync(pool);
    position = 0;
  }
  const hex = pool.toString('hex', position, position + bytes);
  position += bytes;
  return hex;
}
