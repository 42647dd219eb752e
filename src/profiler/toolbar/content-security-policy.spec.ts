import { withToolbarNonce } from './content-security-policy.js';

describe('withToolbarNonce', () => {
  it('creates script-src and style-src from default-src', () => {
    expect(withToolbarNonce("default-src 'self'; img-src *", 'abc')).toBe(
      "default-src 'self'; img-src *; script-src 'self' 'nonce-abc'; style-src 'self' 'nonce-abc'",
    );
  });

  it("adds the nonce to the page's own directives, dropping 'none'", () => {
    expect(withToolbarNonce("default-src 'none'; script-src 'nonce-page'; style-src 'none'", 'abc')).toBe(
      "default-src 'none'; script-src 'nonce-page' 'nonce-abc'; style-src 'nonce-abc'",
    );
  });

  it("creates the directives as 'self' when there is no default-src", () => {
    expect(withToolbarNonce('frame-ancestors none', 'abc')).toBe(
      "frame-ancestors none; script-src 'self' 'nonce-abc'; style-src 'self' 'nonce-abc'",
    );
  });

  it("leaves a directive that relies on 'unsafe-inline' alone, so the page's inline code keeps running", () => {
    expect(
      withToolbarNonce("script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline' 'nonce-x'", 'abc'),
    ).toBe("script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline' 'nonce-x' 'nonce-abc'");
  });
});
