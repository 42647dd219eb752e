import { Injectable } from '@nestjs/common';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF token of an EXPLAIN form: an HMAC of the profile token and the query's index under a secret drawn at
 * start. Only a page this process rendered holds it; it names one query, and a restart invalidates every form.
 */
@Injectable()
export class ExplainCsrf {
  private readonly secret = randomBytes(32);

  token(profile: string, index: number): string {
    return createHmac('sha256', this.secret).update(`explain\u0000${profile}\u0000${index}`).digest('base64url');
  }

  verify(profile: string, index: number, candidate: unknown): boolean {
    if (typeof candidate !== 'string') return false;
    const expected = Buffer.from(this.token(profile, index));
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
