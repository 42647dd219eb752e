import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF tokens of the profiler's forms (EXPLAIN a query, replay a request): an HMAC of the action and what it
 * acts on under a secret drawn at start. Only a page this process rendered holds one; it names one action on one
 * thing, and a restart invalidates every form.
 */
export class ActionTokens {
  private readonly secret = randomBytes(32);

  token(action: string, ...subject: Array<string | number>): string {
    return createHmac('sha256', this.secret)
      .update([action, ...subject].join('\u0000'))
      .digest('base64url');
  }

  verify(candidate: unknown, action: string, ...subject: Array<string | number>): boolean {
    if (typeof candidate !== 'string') return false;
    const expected = Buffer.from(this.token(action, ...subject));
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
