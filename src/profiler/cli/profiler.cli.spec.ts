import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileRecord } from '../storage/profile-record.js';
import { SqliteProfilerStorage } from '../storage/sqlite/sqlite-profiler.storage.js';
import { ProfilerCli } from './profiler.cli.js';

const T0 = Date.UTC(2026, 0, 5, 9, 3, 7);
const record = (token: string, overrides: Partial<ProfileRecord>): ProfileRecord => ({
  token,
  parent: null,
  ip: '127.0.0.1',
  method: 'GET',
  url: 'http://localhost:3000/',
  time: T0,
  statusCode: 200,
  kind: 'application',
  duration: 12.5,
  route: 'shop_home',
  redirectedFrom: null,
  data: {},
  ...overrides,
});

describe('ProfilerCli', () => {
  let dir: string;
  let file: string;
  let out: string;
  let err: string;
  const cli = () =>
    new ProfilerCli({
      storage: () => new SqliteProfilerStorage({ file }),
      out: (text) => void (out += text),
      err: (text) => void (err += text),
      utc: true,
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-cli-'));
    file = join(dir, 'profiler.sqlite');
    out = '';
    err = '';
    const storage = new SqliteProfilerStorage({ file });
    await storage.open();
    await storage.write([
      record('aaaaaa', { url: 'http://localhost:3000/catalogue/shoes', time: T0 }),
      record('bbbbbb', {
        ip: '192.168.1.20',
        method: 'POST',
        url: 'http://localhost:3000/cart/items',
        statusCode: 303,
        time: T0 + 61_000,
      }),
      record('cccccc', {
        ip: '::1',
        url: 'http://localhost:3000/missing',
        statusCode: 404,
        time: Date.UTC(2026, 10, 30, 23, 59, 59),
      }),
    ]);
    await storage.close();
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the newest profiles as a table', async () => {
    expect(await cli().run(['list'])).toBe(0);
    expect(out).toBe(
      [
        'Status  IP            Method  URL                                    Time                  Token',
        '------  ------------  ------  -------------------------------------  --------------------  ------',
        '404     ::1           GET     http://localhost:3000/missing          30-Nov-2026 23:59:59  cccccc',
        '303     192.168.1.20  POST    http://localhost:3000/cart/items       05-Jan-2026 09:04:08  bbbbbb',
        '200     127.0.0.1     GET     http://localhost:3000/catalogue/shoes  05-Jan-2026 09:03:07  aaaaaa',
        '3 results found',
        '',
      ].join('\n'),
    );
    expect(err).toBe('');
  });

  it('filters and limits', async () => {
    expect(await cli().run(['list', '--limit', '1', '--method', 'get'])).toBe(0);
    expect(out.split('\n').slice(2)).toEqual([
      '404     ::1  GET     http://localhost:3000/missing  30-Nov-2026 23:59:59  cccccc',
      '2 results found',
      '',
    ]);
    out = '';
    expect(await cli().run(['list', '--status=3', '--ip', '192.168.', '--url', 'CART'])).toBe(0);
    expect(out).toContain('bbbbbb');
    expect(out).toMatch(/\n1 results found\n$/);
    out = '';
    expect(await cli().run(['list', '--url', 'nothing'])).toBe(0);
    expect(out).toBe('0 results found\n');
  });

  it('clears the store and says how many profiles it removed', async () => {
    expect(await cli().run(['clear'])).toBe(0);
    expect(out).toBe('Removed 3 profiles.\n');
    out = '';
    await cli().run(['list']);
    expect(out).toBe('0 results found\n');
  });

  it('prints its help', async () => {
    expect(await cli().run(['--help'])).toBe(0);
    expect(out).toContain('Usage: profiler <command>');
    expect(out).toContain('--status S');
  });

  it('refuses bad command lines with the usage, exit code 2', async () => {
    expect(await cli().run([])).toBe(2);
    expect(err).toContain('No command given.');
    err = '';
    expect(await cli().run(['purge'])).toBe(2);
    expect(err).toContain('Unknown command "purge".');
    err = '';
    expect(await cli().run(['list', '--limit', 'ten'])).toBe(2);
    expect(err).toContain('--limit must be a positive whole number, got "ten".');
    err = '';
    expect(await cli().run(['list', '--verbose'])).toBe(2);
    expect(err).toContain("Unknown option '--verbose'");
    err = '';
    expect(await cli().run(['clear', '--ip', '1'])).toBe(2);
    expect(out).toBe('');
  });

  it('reports a store that cannot be opened, exit code 1', async () => {
    const broken = new ProfilerCli({
      storage: () => {
        throw new Error('Unsupported profiler DSN scheme "postgres:"');
      },
      out: (text) => void (out += text),
      err: (text) => void (err += text),
    });
    expect(await broken.run(['list'])).toBe(1);
    expect(err).toBe('Error: Unsupported profiler DSN scheme "postgres:"\n');
  });

  it('formats times as DD-Mon-YYYY HH:MM:SS', () => {
    expect(cli().formatTime(Date.UTC(2026, 1, 3, 4, 5, 6))).toBe('03-Feb-2026 04:05:06');
  });
});
