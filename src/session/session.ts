import { randomBytes } from 'node:crypto';

/** A session id: 32 random bytes, base64url (43 characters). Anything else in the cookie is ignored. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

export interface FlashMessage {
  type: string;
  message: string;
}

const FLASHES = '_flashes';

/** What became of the session at the end of the request, for the listener and the Session panel. */
export type SessionOutcome = 'untouched' | 'saved' | 'touched' | 'destroyed' | 'none';

/**
 * One visitor's session: attributes kept between requests (JSON values), stored in the database under a random
 * id the cookie carries. Created lazily: a visitor gets an id, a row and a cookie only once something is stored.
 * Access marks the session used (the response then becomes private); changes mark it dirty (saved with the
 * response); `migrate()` gives it a new id (on login and logout, against session fixation).
 */
export class Session {
  private readonly attributes: Map<string, unknown>;
  private currentId: string | null;
  /** The id the session had when it was loaded, removed from the store when the id changes. */
  readonly loadedId: string | null;
  private wasUsed = false;
  private wasChanged = false;
  private wasInvalidated = false;
  private closed = false;
  private boundUser: number | null;

  constructor(
    id: string | null,
    attributes: Record<string, unknown> = {},
    userId: number | null = null,
    /** When the stored session expires (ISO), for the touch decision. */
    readonly expiresAt: string | null = null,
  ) {
    this.currentId = id;
    this.loadedId = id;
    this.attributes = new Map(Object.entries(attributes));
    this.boundUser = userId;
  }

  /** The id, or null while nothing was ever stored. */
  get id(): string | null {
    return this.currentId;
  }

  get isNew(): boolean {
    return this.loadedId === null;
  }

  get used(): boolean {
    return this.wasUsed;
  }

  get changed(): boolean {
    return this.wasChanged;
  }

  get invalidated(): boolean {
    return this.wasInvalidated;
  }

  get isEmpty(): boolean {
    return this.attributes.size === 0 && this.boundUser === null;
  }

  /** The logged-in user's id the session carries (reading it makes the page personal). */
  get userId(): number | null {
    this.read();
    return this.boundUser;
  }

  /** The user id without marking the session used (the session listener, the profiler). */
  peekUserId(): number | null {
    return this.boundUser;
  }

  get<T = unknown>(name: string): T | undefined {
    this.read();
    return this.attributes.get(name) as T | undefined;
  }

  has(name: string): boolean {
    this.read();
    return this.attributes.has(name);
  }

  set(name: string, value: unknown): void {
    this.change();
    if (value === undefined) this.attributes.delete(name);
    else this.attributes.set(name, value);
  }

  remove(name: string): void {
    this.change();
    this.attributes.delete(name);
  }

  /** Every attribute (a copy). */
  all(): Record<string, unknown> {
    this.read();
    return Object.fromEntries(this.attributes);
  }

  /** The attributes without marking the session used (the profiler's view). */
  peek(): Record<string, unknown> {
    return Object.fromEntries(this.attributes);
  }

  /** Binds the session to a user (or unbinds it), so that all of a user's sessions can be found and ended. */
  setUser(userId: number | null): void {
    this.change();
    this.boundUser = userId;
  }

  /** A new id for the same attributes (login, privilege change): a fixated id stops working. */
  migrate(): void {
    this.change();
    this.currentId = newSessionId();
  }

  /** Forgets every attribute and the user; the stored session is removed and the cookie expired (logout). */
  invalidate(): void {
    this.change();
    this.attributes.clear();
    this.boundUser = null;
    this.wasInvalidated = true;
    this.currentId = null;
  }

  addFlash(type: string, message: string): void {
    const flashes = (this.attributes.get(FLASHES) as FlashMessage[] | undefined) ?? [];
    this.set(FLASHES, [...flashes, { type, message }]);
  }

  /** The flash messages, removed from the session (shown once). */
  takeFlashes(): FlashMessage[] {
    if (!this.attributes.has(FLASHES)) {
      this.read();
      return [];
    }
    const flashes = this.get<FlashMessage[]>(FLASHES) ?? [];
    this.remove(FLASHES);
    return flashes;
  }

  /** Ensures the session has an id (a new one for a new session) and returns it. */
  ensureId(): string {
    if (this.currentId === null) {
      this.change();
      this.currentId = newSessionId();
    }
    return this.currentId;
  }

  /** After the response: the session can no longer change (its state is saved). */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Reading a stored session makes the page personal; reading the empty session of a visitor who has none
   * does not (every page asks for the user and the flashes: an anonymous page stays cacheable).
   */
  private read(): void {
    if (!this.isNew || this.attributes.size > 0 || this.boundUser !== null) this.wasUsed = true;
  }

  private change(): void {
    if (this.closed)
      throw new Error('The session was saved with the response: it cannot change after kernel.response.');
    this.wasUsed = true;
    this.wasChanged = true;
  }
}
