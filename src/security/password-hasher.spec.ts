import { PasswordHasher } from './password-hasher.js';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();

  it('hashes with scrypt and a random salt, and verifies only the right password', async () => {
    const a = await hasher.hash('correct horse battery staple');
    const b = await hasher.hash('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    await expect(hasher.verify('correct horse battery staple', a)).resolves.toBe(true);
    await expect(hasher.verify('correct horse battery stapl', a)).resolves.toBe(false);
    await expect(hasher.verify('', a)).resolves.toBe(false);
  });

  it('refuses hashes it does not understand instead of throwing', async () => {
    await expect(hasher.verify('x', 'plain')).resolves.toBe(false);
    await expect(hasher.verify('x', 'scrypt$abc$8$1$c2FsdA$aGFzaA')).resolves.toBe(false);
    await expect(hasher.verify('x', 'bcrypt$1$2$3$4$5')).resolves.toBe(false);
  });

  it("says when a hash is weaker than today's parameters", async () => {
    expect(hasher.needsRehash(await hasher.hash('x'))).toBe(false);
    expect(hasher.needsRehash('scrypt$16384$8$1$c2FsdA$aGFzaA')).toBe(true);
  });
});
