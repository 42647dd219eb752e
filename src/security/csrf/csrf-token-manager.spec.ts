import { Session } from '../../session/session.js';
import { CsrfTokenManager } from './csrf-token-manager.js';

describe('CsrfTokenManager', () => {
  const tokens = new CsrfTokenManager();

  it('issues one random token per purpose, kept in the session under a masked key', () => {
    const session = new Session(null);
    const cart = tokens.token(session, 'cart');
    expect(cart).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.token(session, 'cart')).toBe(cart);
    const login = tokens.token(session, 'login');
    expect(login).not.toBe(cart);
    expect(session.peek()).toEqual({ '_csrf_token/cart': cart, '_csrf_token/login': login });
    // A visitor's first form starts their session.
    expect(session.changed).toBe(true);
    expect(tokens.token(new Session(null), 'cart')).not.toBe(cart);
  });

  it('accepts only the exact token of that purpose', () => {
    const session = new Session(null);
    const cart = tokens.token(session, 'cart');
    const login = tokens.token(session, 'login');
    expect(tokens.isValid(session, 'cart', cart)).toBe(true);
    expect(tokens.isValid(session, 'cart', login)).toBe(false);
    expect(tokens.isValid(session, 'checkout', cart)).toBe(false);
    expect(tokens.isValid(session, 'cart', `${cart.slice(0, -1)}${cart.endsWith('A') ? 'B' : 'A'}`)).toBe(false);
    expect(tokens.isValid(session, 'cart', cart.slice(1))).toBe(false);
    expect(tokens.isValid(session, 'cart', `${cart}x`)).toBe(false);
    expect(tokens.isValid(session, 'cart', '')).toBe(false);
    expect(tokens.isValid(session, 'cart', undefined)).toBe(false);
    expect(tokens.isValid(session, 'cart', [cart])).toBe(false);
    expect(tokens.isValid(session, 'cart', { toString: () => cart })).toBe(false);
  });

  it('accepts nothing for a session that was never given a token (an empty token included)', () => {
    const session = new Session(null);
    expect(tokens.isValid(session, 'cart', '')).toBe(false);
    expect(tokens.isValid(session, 'cart', 'undefined')).toBe(false);
    session.set('_csrf_token/cart', 12345);
    expect(tokens.isValid(session, 'cart', '12345')).toBe(false);
  });

  it('refuses a token stored before a refresh, and issues a new one after it', () => {
    const session = new Session(null);
    const old = tokens.token(session, 'login');
    tokens.refresh(session, 'login');
    expect(tokens.isValid(session, 'login', old)).toBe(false);
    const renewed = tokens.token(session, 'login');
    expect(renewed).not.toBe(old);
    expect(tokens.isValid(session, 'login', renewed)).toBe(true);
  });

  it('refuses every token once the session is invalidated (logout)', () => {
    const session = new Session('s'.repeat(43));
    const cart = tokens.token(session, 'cart');
    session.invalidate();
    expect(tokens.isValid(session, 'cart', cart)).toBe(false);
  });
});
