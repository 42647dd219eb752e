import { Injectable } from '@nestjs/common';
import { parseCookie, stringifySetCookie } from 'cookie';
import { AppConfig } from '../config/app-config.js';
import type { ResponseHandle } from '../lifecycle/http/response-handle.js';
import { KernelListener } from '../lifecycle/kernel-listener.decorator.js';
import {
  KernelEvents,
  type FinishRequestEvent,
  type RequestEvent,
  type ResponseEvent,
} from '../lifecycle/kernel.events.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../lifecycle/logging/log-level.js';
import { SESSION_ATTRIBUTES } from '../profiler/collectors/request.collector.js';
import { SESSION, SESSION_REPORT, type SessionReport } from './session-context.js';
import { isSessionId, Session } from './session.js';
import { SessionStore } from './session.store.js';
import { contextKey } from '../lifecycle/kernel-context.js';

/** One request in a hundred that saves a session also removes the expired ones (PHP's gc_probability). */
const GC_PROBABILITY = 0.01;
const COOKIE_RECEIVED = contextKey<boolean>('session cookie received');

/**
 * The session's three kernel steps (Symfony's SessionListener):
 * - kernel.request (128): reads the session cookie and loads the session from the store (waiting for it), or
 *   starts an empty one; nothing is created for a visitor until something is stored.
 * - kernel.response (-1000, after the toolbar): a used session makes the response private; a changed session is
 *   saved (the response waits, so the next request finds it) and its cookie set (HttpOnly, SameSite=Lax, Secure
 *   over HTTPS); an emptied one is removed with its cookie; an unchanged one has its expiry renewed now and then.
 * - kernel.finish_request (0): the session is closed: it cannot change after its response.
 */
@Injectable()
export class SessionListener {
  constructor(
    private readonly store: SessionStore,
    private readonly config: AppConfig,
    private readonly logger: KernelLogger,
  ) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 128 })
  onKernelRequest(event: RequestEvent): void {
    const context = event.request.context;
    const header = event.request.raw.headers.cookie;
    const id = header ? safeParse(header)[this.config.session.cookieName] : undefined;
    if (id !== undefined) context.set(COOKIE_RECEIVED, true);
    if (!isSessionId(id)) {
      context.set(SESSION, new Session(null));
      return;
    }
    event.waitFor(
      this.store.load(id).then((stored) => {
        context.set(
          SESSION,
          stored ? new Session(id, stored.attributes, stored.userId, stored.expiresAt) : new Session(null),
        );
      }),
    );
  }

  @KernelListener(KernelEvents.RESPONSE, { priority: -1000 })
  onKernelResponse(event: ResponseEvent): void {
    const context = event.request.context;
    const session = context.get(SESSION);
    if (!session) return;
    const response = event.response;
    const cookieReceived = context.get(COOKIE_RECEIVED) === true;
    const report: SessionReport = {
      idPrefix: null,
      cookieReceived,
      unknownCookie: cookieReceived && session.isNew,
      outcome: 'none',
      migrated: !session.isNew && session.id !== null && session.id !== session.loadedId,
      cookieSet: false,
      expiresAt: session.expiresAt,
      userId: session.peekUserId(),
      attributes: session.peek(),
      madePrivate: false,
    };
    context.set(SESSION_REPORT, report);
    context.set(SESSION_ATTRIBUTES, report.attributes);

    // A page that read or wrote the session is this visitor's own: no shared cache may keep it.
    if (session.used && !/no-store/.test(response.getHeader('cache-control') ?? '')) {
      response.setHeader('Cache-Control', 'max-age=0, must-revalidate, private');
      report.madePrivate = true;
    }

    const work = this.persist(session, response, event.request.isSecure, cookieReceived, report);
    if (!work) return;
    const logged = work.catch((error: unknown) => {
      this.logger.record(
        LogLevel.ERROR,
        'request',
        'The session could not be saved: {message}',
        { message: (error as Error).message, exception: error },
        context,
      );
      throw error;
    });
    // A streamed response cannot wait: its session is saved while it streams.
    if (response.streamed) void logged.catch(() => undefined);
    else event.waitFor(logged);
  }

  @KernelListener(KernelEvents.FINISH_REQUEST, { priority: 0 })
  onFinishRequest(event: FinishRequestEvent): void {
    event.request.context.get(SESSION)?.close();
  }

  /** Decides what the store must do for this session and sets or clears the cookie; returns the store's work. */
  private persist(
    session: Session,
    response: ResponseHandle,
    secure: boolean,
    cookieReceived: boolean,
    report: SessionReport,
  ): Promise<unknown> | undefined {
    const loadedId = session.loadedId;
    if (session.changed && session.isEmpty) {
      // Logged out or emptied: nothing is kept, and the browser forgets the id.
      if (cookieReceived) this.setCookie(response, '', secure, 0, report);
      report.outcome = loadedId ? 'destroyed' : 'none';
      return loadedId ? this.store.destroy(loadedId) : undefined;
    }
    if (session.changed) {
      const id = session.ensureId();
      report.idPrefix = id.slice(0, 6);
      report.outcome = 'saved';
      const save = async (): Promise<void> => {
        if (loadedId && loadedId !== id) await this.store.destroy(loadedId);
        report.expiresAt = await this.store.save(id, session.peek(), session.peekUserId());
        if (Math.random() < GC_PROBABILITY) void this.store.collectGarbage().catch(() => undefined);
      };
      this.setCookie(response, id, secure, this.store.lifetimeSeconds, report);
      return save();
    }
    if (loadedId === null) {
      // An unknown or expired id in the cookie: the browser forgets it.
      if (cookieReceived) this.setCookie(response, '', secure, 0, report);
      return undefined;
    }
    report.idPrefix = loadedId.slice(0, 6);
    const expiresAt = session.expiresAt ? Date.parse(session.expiresAt) : 0;
    const renewedAt = expiresAt - this.store.lifetimeSeconds * 1000;
    if (Date.now() - renewedAt < this.config.session.touchAfterSeconds * 1000) {
      report.outcome = 'untouched';
      return undefined;
    }
    report.outcome = 'touched';
    this.setCookie(response, loadedId, secure, this.store.lifetimeSeconds, report);
    return this.store.touch(loadedId).then((expiry) => {
      report.expiresAt = expiry;
    });
  }

  private setCookie(
    response: ResponseHandle,
    value: string,
    secure: boolean,
    maxAge: number,
    report: SessionReport,
  ): void {
    response.appendHeader(
      'Set-Cookie',
      stringifySetCookie({
        name: this.config.session.cookieName,
        value,
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure,
        maxAge,
      }),
    );
    report.cookieSet = true;
  }
}

/** A Cookie header that does not parse is no cookie (never a failed request). */
function safeParse(header: string): Record<string, string | undefined> {
  try {
    return parseCookie(header);
  } catch {
    return {};
  }
}
