import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createShopDb } from '../database.factory.js';
import { DatabaseCli } from './database.cli.js';
import { MIGRATIONS } from '../migrations/index.js';

describe('DatabaseCli', () => {
  let dir: string;
  let url: string;
  let out: string;
  let err: string;
  const cli = () =>
    new DatabaseCli({
      open: () => createShopDb(url, { baseDir: dir }),
      target: url,
      out: (text) => void (out += text),
      err: (text) => void (err += text),
    });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-db-cli-'));
    url = 'sqlite:var/shop.sqlite';
    out = '';
    err = '';
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrates, then says the database is up to date', async () => {
    expect(await cli().run(['migrate'])).toBe(0);
    // The core's migrations, in order (a feature module's, registered when its module loads, would follow).
    expect(out.split('\n').filter((line) => /^Applied migration 0\d{3}-/.test(line))).toEqual(
      Object.keys(MIGRATIONS).map((name) => `Applied migration ${name}.`),
    );
    expect(Object.keys(MIGRATIONS)).toHaveLength(8);
    out = '';
    expect(await cli().run(['migrate'])).toBe(0);
    expect(out).toBe('The database sqlite:var/shop.sqlite is up to date.\n');
    expect(err).toBe('');
  });

  it('seeds (migrating first), and seeds again without duplicating', async () => {
    expect(await cli().run(['seed'])).toBe(0);
    expect(out).toContain(
      'Applied migration 0008-rate-limits.\nSeeded 240 products in 10 categories into sqlite:var/shop.sqlite (240 new, 0 replaced, 0 removed).\n',
    );
    out = '';
    expect(await cli().run(['seed'])).toBe(0);
    expect(out).toBe(
      'The database sqlite:var/shop.sqlite is up to date.\nSeeded 240 products in 10 categories into sqlite:var/shop.sqlite (0 new, 240 replaced, 0 removed).\n',
    );
  });

  it('explains its usage and refuses unknown commands', async () => {
    expect(await cli().run(['--help'])).toBe(0);
    expect(out).toContain('npm run db:seed');
    expect(await cli().run([])).toBe(2);
    expect(err).toContain('No command given.');
    expect(await cli().run(['drop'])).toBe(2);
    expect(err).toContain('Unknown command "drop".');
  });

  it('reports a database it cannot open, with exit code 1', async () => {
    url = 'postgres://nobody@127.0.0.1:1/shop';
    expect(await cli().run(['migrate'])).toBe(1);
    expect(err).toMatch(
      /^Error: Could not migrate the database postgres:\/\/nobody@127\.0\.0\.1:1\/shop: .*ECONNREFUSED/,
    );
  });
});
