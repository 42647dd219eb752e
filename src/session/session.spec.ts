import { isSessionId, newSessionId, Session } from './session.js';

const STORED_ID = 'a'.repeat(43);

describe('isSessionId / newSessionId', () => {
  it('accepts only 43 base64url characters', () => {
    expect(isSessionId(STORED_ID)).toBe(true);
    expect(isSessionId('A-_9'.repeat(10) + 'abc')).toBe(true);
    expect(isSessionId('a'.repeat(42))).toBe(false);
    expect(isSessionId('a'.repeat(44))).toBe(false);
    expect(isSessionId('a'.repeat(42) + '=')).toBe(false);
    expect(isSessionId('a'.repeat(42) + '/')).toBe(false);
    expect(isSessionId(undefined)).toBe(false);
    expect(isSessionId(42)).toBe(false);
  });

  it('makes ids it accepts, never twice the same', () => {
    const a = newSessionId();
    expect(isSessionId(a)).toBe(true);
    expect(newSessionId()).not.toBe(a);
  });
});

describe('Session', () => {
  describe("a new visitor's session", () => {
    it('has no id and stays unused while only read', () => {
      const session = new Session(null);
      expect(session.id).toBeNull();
      expect(session.isNew).toBe(true);
      expect(session.isEmpty).toBe(true);
      expect(session.get('cart')).toBeUndefined();
      expect(session.has('cart')).toBe(false);
      expect(session.userId).toBeNull();
      expect(session.all()).toEqual({});
      expect(session.takeFlashes()).toEqual([]);
      // Every page reads the user and the flashes: an anonymous page must stay cacheable.
      expect(session.used).toBe(false);
      expect(session.changed).toBe(false);
    });

    it('is used and changed once something is stored, and gets its id only when asked', () => {
      const session = new Session(null);
      session.set('locale', 'fr');
      expect(session.used).toBe(true);
      expect(session.changed).toBe(true);
      expect(session.id).toBeNull();
      const id = session.ensureId();
      expect(isSessionId(id)).toBe(true);
      expect(session.id).toBe(id);
      expect(session.ensureId()).toBe(id);
      expect(session.loadedId).toBeNull();
    });
  });

  describe('a stored session', () => {
    it('is marked used (not changed) by a read, and by nothing the profiler does', () => {
      const session = new Session(STORED_ID, { locale: 'de' }, 7, '2030-01-01T00:00:00.000Z');
      expect(session.peek()).toEqual({ locale: 'de' });
      expect(session.peekUserId()).toBe(7);
      expect(session.used).toBe(false);
      expect(session.get('locale')).toBe('de');
      expect(session.used).toBe(true);
      expect(session.changed).toBe(false);
      expect(session.isNew).toBe(false);
      expect(session.expiresAt).toBe('2030-01-01T00:00:00.000Z');
    });

    it('reading the user id of an otherwise empty stored session makes the page personal', () => {
      const session = new Session(STORED_ID);
      expect(session.userId).toBeNull();
      expect(session.used).toBe(true);
    });

    it('removes an attribute set to undefined, and all() is a copy', () => {
      const session = new Session(STORED_ID, { a: 1, b: 2 });
      session.set('a', undefined);
      session.remove('missing');
      const all = session.all();
      all.c = 3;
      expect(session.peek()).toEqual({ b: 2 });
      expect(session.changed).toBe(true);
    });

    it('keeps the id it was loaded with when the id changes', () => {
      const session = new Session(STORED_ID, { cart: 3 }, 5);
      session.migrate();
      expect(session.loadedId).toBe(STORED_ID);
      expect(isSessionId(session.id)).toBe(true);
      expect(session.id).not.toBe(STORED_ID);
      expect(session.peek()).toEqual({ cart: 3 });
      expect(session.peekUserId()).toBe(5);
      expect(session.changed).toBe(true);
      expect(session.invalidated).toBe(false);
    });

    it('migrates to a different id each time (a fixated id never comes back)', () => {
      const session = new Session(STORED_ID);
      session.migrate();
      const first = session.id;
      session.migrate();
      expect(session.id).not.toBe(first);
      expect(session.id).not.toBe(STORED_ID);
    });

    it('forgets everything, user included, when invalidated', () => {
      const session = new Session(STORED_ID, { cart: 3, _csrf_token: 'x' }, 5);
      session.invalidate();
      expect(session.id).toBeNull();
      expect(session.loadedId).toBe(STORED_ID);
      expect(session.peek()).toEqual({});
      expect(session.peekUserId()).toBeNull();
      expect(session.isEmpty).toBe(true);
      expect(session.invalidated).toBe(true);
      expect(session.changed).toBe(true);
      // A new id after a logout is a new session, never the old one.
      const id = session.ensureId();
      expect(id).not.toBe(STORED_ID);
    });

    it('binds and unbinds a user, which counts as content', () => {
      const session = new Session(STORED_ID);
      session.setUser(9);
      expect(session.peekUserId()).toBe(9);
      expect(session.isEmpty).toBe(false);
      expect(session.changed).toBe(true);
      session.setUser(null);
      expect(session.isEmpty).toBe(true);
    });
  });

  describe('flash messages', () => {
    it('are kept in order and given once', () => {
      const session = new Session(null);
      session.addFlash('success', 'Saved.');
      session.addFlash('error', 'But not that.');
      expect(session.peek()).toEqual({
        _flashes: [
          { type: 'success', message: 'Saved.' },
          { type: 'error', message: 'But not that.' },
        ],
      });
      expect(session.takeFlashes()).toEqual([
        { type: 'success', message: 'Saved.' },
        { type: 'error', message: 'But not that.' },
      ]);
      expect(session.takeFlashes()).toEqual([]);
      expect(session.peek()).toEqual({});
    });

    it('taking none from a stored session changes nothing', () => {
      const session = new Session(STORED_ID, { locale: 'fr' });
      expect(session.takeFlashes()).toEqual([]);
      expect(session.changed).toBe(false);
      expect(session.used).toBe(true);
    });

    it('taking the flashes of a stored session changes it (they must not show again)', () => {
      const session = new Session(STORED_ID, { _flashes: [{ type: 'info', message: 'Hi' }] });
      expect(session.takeFlashes()).toEqual([{ type: 'info', message: 'Hi' }]);
      expect(session.changed).toBe(true);
      expect(session.isEmpty).toBe(true);
    });
  });

  describe('after its response', () => {
    const CLOSED = 'The session was saved with the response: it cannot change after kernel.response.';

    it('refuses every change but can still be read', () => {
      const session = new Session(STORED_ID, { locale: 'fr' }, 1);
      session.close();
      expect(session.isClosed).toBe(true);
      expect(() => session.set('a', 1)).toThrow(CLOSED);
      expect(() => session.remove('locale')).toThrow(CLOSED);
      expect(() => session.setUser(null)).toThrow(CLOSED);
      expect(() => session.migrate()).toThrow(CLOSED);
      expect(() => session.invalidate()).toThrow(CLOSED);
      expect(() => session.addFlash('info', 'late')).toThrow(CLOSED);
      expect(session.get('locale')).toBe('fr');
      expect(session.id).toBe(STORED_ID);
      expect(session.peek()).toEqual({ locale: 'fr' });
      expect(session.changed).toBe(false);
    });

    it('refuses to make up an id for a new session', () => {
      const session = new Session(null);
      session.close();
      expect(() => session.ensureId()).toThrow(CLOSED);
      expect(session.id).toBeNull();
    });
  });
});
