import { randomInt } from 'node:crypto';

/** Crockford's base 32: no I, L, O, U; easy to read out on the phone. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const REFERENCE = /^SK-[0-9A-HJKMNP-TV-Z]{8}$/;

/** A customer-facing order number, `SK-` and 8 random characters (40 bits: unguessable, unique by index). */
export function newOrderReference(): string {
  let out = 'SK-';
  for (let i = 0; i < 8; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function isOrderReference(value: string): boolean {
  return REFERENCE.test(value);
}
