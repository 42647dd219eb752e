import { Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Session } from '../../session/session.js';

/** Session key of a token; named so that every redaction rule masks it. */
const KEY = (id: string) => `_csrf_token/${id}`;

/**
 * Synchronizer tokens against cross-site request forgery: one random token per purpose (`cart`, `login`, …) kept in
 * the visitor's session, rendered in the form (or sent as X-CSRF-Token by scripts), compared in constant time when
 * the form comes back. Issuing a token stores it, so a visitor's first form starts their session.
 */
@Injectable()
export class CsrfTokenManager {
  token(session: Session, id: string): string {
    const existing = session.get<string>(KEY(id));
    if (typeof existing === 'string') return existing;
    const token = randomBytes(32).toString('base64url');
    session.set(KEY(id), token);
    return token;
  }

  isValid(session: Session, id: string, token: unknown): boolean {
    const expected = session.get<string>(KEY(id));
    if (typeof expected !== 'string' || typeof token !== 'string' || token.length !== expected.length) return false;
    return timingSafeEqual(Buffer.from(token), Buffer.from(expected));
  }

  /** A new token for this purpose (after login: tokens from before it stop working). */
  refresh(session: Session, id: string): void {
    session.remove(KEY(id));
  }
}
