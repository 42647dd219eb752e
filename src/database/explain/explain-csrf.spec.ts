import { ExplainCsrf } from './explain-csrf.js';

describe('ExplainCsrf', () => {
  const csrf = new ExplainCsrf();

  it('accepts the token it made for that profile and query only', () => {
    const token = csrf.token('abc123', 2);
    expect(csrf.verify('abc123', 2, token)).toBe(true);
    expect(csrf.verify('abc123', 3, token)).toBe(false);
    expect(csrf.verify('abc124', 2, token)).toBe(false);
  });

  it('refuses a missing, malformed or another process’s token', () => {
    expect(csrf.verify('abc123', 2, undefined)).toBe(false);
    expect(csrf.verify('abc123', 2, ['x'])).toBe(false);
    expect(csrf.verify('abc123', 2, '')).toBe(false);
    expect(csrf.verify('abc123', 2, new ExplainCsrf().token('abc123', 2))).toBe(false);
  });
});
