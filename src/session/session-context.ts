import { contextKey, type KernelContext } from '../lifecycle/kernel-context.js';
import type { Session } from './session.js';

/** Where the request's session lives on its KernelContext. */
export const SESSION = contextKey<Session>('shopkernel.session');
/** What the session listener did, for the Session panel. */
export const SESSION_REPORT = contextKey<SessionReport>('shopkernel.session.report');

export interface SessionReport {
  /** The id's first characters (never the whole id: it is a credential). */
  idPrefix: string | null;
  cookieReceived: boolean;
  /** A cookie named a session the store does not have (expired or forged). */
  unknownCookie: boolean;
  outcome: 'untouched' | 'saved' | 'touched' | 'destroyed' | 'none';
  migrated: boolean;
  cookieSet: boolean;
  expiresAt: string | null;
  userId: number | null;
  attributes: Record<string, unknown>;
  madePrivate: boolean;
}

/** The request's session, once the session listener has started it (kernel.request, priority 128). */
export function sessionOf(context: KernelContext): Session {
  const session = context.get(SESSION);
  if (!session)
    throw new Error('No session: the SessionModule starts it in kernel.request; this request did not pass it.');
  return session;
}
