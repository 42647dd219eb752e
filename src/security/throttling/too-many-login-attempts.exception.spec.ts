import { TooManyLoginAttemptsException } from './too-many-login-attempts.exception.js';

describe('TooManyLoginAttemptsException', () => {
  it.each([
    [1, 'login', 'Too many failed login attempts, please try again in 1 minute.'],
    [60, 'login', 'Too many failed login attempts, please try again in 1 minute.'],
    [61, 'login', 'Too many failed login attempts, please try again in 2 minutes.'],
    [600, 'registration', 'Too many attempts, please try again in 10 minutes.'],
  ] as const)('words a wait of %i s for a %s as Symfony does', (retryAfter, action, message) => {
    const exception = new TooManyLoginAttemptsException({ scope: 'account', retryAfter }, action);
    expect(exception.message).toBe(message);
    expect(exception.statusCode).toBe(429);
    expect(exception.headers).toEqual({ 'Retry-After': String(retryAfter) });
  });
});
