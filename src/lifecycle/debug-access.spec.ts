import { AppConfig } from '../config/app-config.js';
import { DebugAccess } from './debug-access.js';
import type { KernelRequest } from './http/kernel-request.js';
import type { KernelLogger } from './logging/kernel-logger.js';

const from = (clientIp: string, httpHost = '127.0.0.1:3000', headers: Record<string, string> = {}) =>
  ({
    clientIp,
    httpHost,
    schemeAndHttpHost: `http://${httpHost}`,
    header: (name: string) => headers[name.toLowerCase()],
    attributes: {},
    context: undefined,
  }) as unknown as KernelRequest;
const warnings: string[] = [];
const logger = {
  record: (_level: number, _channel: string, _message: string, context: { host: string }) =>
    warnings.push(context.host),
} as unknown as KernelLogger;

describe('DebugAccess', () => {
  const access = new DebugAccess(
    AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ALLOWED_IPS: 'loopback,10.0.0.0/8' }),
    logger,
  );

  it('allows the configured addresses and ranges only, each request deciding on its own address', () => {
    // Twice each, in turns: a remembered verdict belongs to its address alone.
    for (let i = 0; i < 2; i++) {
      expect(access.allows(from('127.0.0.1'))).toBe(true);
      expect(access.allows(from('203.0.113.9'))).toBe(false);
      expect(access.allows(from('10.20.30.40'))).toBe(true);
      expect(access.allows(from('::1'))).toBe(true);
      expect(access.allows(from('192.168.1.2'))).toBe(false);
      expect(access.allows(from(''))).toBe(false);
    }
  });

  it('keeps deciding right past the addresses it remembers', () => {
    for (let i = 0; i < 600; i++) expect(access.allows(from(`10.0.${i >> 8}.${i & 255}`))).toBe(true);
    for (let i = 0; i < 600; i++) expect(access.allows(from(`198.51.${i >> 8}.${i & 255}`))).toBe(false);
  });

  it('allows nobody without debug mode', () => {
    const off = new DebugAccess(AppConfig.fromEnv({ APP_ENV: 'prod', APP_DEBUG: '0' }), logger);
    expect(off.allows(from('127.0.0.1'))).toBe(false);
  });

  it('refuses a malformed PROFILER_ALLOWED_IPS at start', () => {
    expect(
      () =>
        new DebugAccess(
          AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ALLOWED_IPS: 'not-an-address' }),
          logger,
        ),
    ).toThrow(/^PROFILER_ALLOWED_IPS: /);
  });

  it('answers only for loopback names, IP addresses and the allowed host names, and says once why it hides', () => {
    const hosts = new DebugAccess(
      AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ALLOWED_HOSTS: 'shop.test,.dev.example' }),
      logger,
    );
    warnings.length = 0;
    const allowed = [
      'localhost',
      'localhost:3000',
      'LocalHost.',
      'app.localhost:8080',
      '127.0.0.1:3000',
      '127.8.9.10',
      '[::1]:3000',
      '192.168.1.20:3000',
      '[fe80::1]',
      'shop.test',
      'SHOP.TEST:3000',
      'dev.example',
      'a.b.dev.example:443',
    ];
    const refused = [
      'rebind.attacker.example',
      'localhost.attacker.example',
      'attacker.example:3000',
      'shop.test.attacker.example',
      'notdev.example',
      'xdev.example',
      '',
      'bad host!',
      '127.0.0.1.nip.io',
    ];
    for (const host of allowed) expect([host, hosts.allows(from('127.0.0.1', host))]).toEqual([host, true]);
    for (const host of refused) expect([host, hosts.allows(from('127.0.0.1', host))]).toEqual([host, false]);
    for (const host of refused) hosts.allows(from('127.0.0.1', host));
    expect(warnings).toEqual([
      'rebind.attacker.example',
      'localhost.attacker.example',
      'attacker.example',
      'shop.test.attacker.example',
      'notdev.example',
      'xdev.example',
      '',
      'bad host!',
      '127.0.0.1.nip.io',
    ]);
    // A client whose address is refused learns nothing, and is not reported.
    warnings.length = 0;
    expect(hosts.allows(from('203.0.113.9', 'elsewhere.example'))).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('answers the name the server listens on (HOST)', () => {
    const named = new DebugAccess(AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', HOST: 'DevBox.lan' }), logger);
    expect(named.allows(from('127.0.0.1', 'devbox.lan:3000'))).toBe(true);
    expect(named.allows(from('127.0.0.1', 'other.lan:3000'))).toBe(false);
  });

  it('answers any host with PROFILER_ALLOWED_HOSTS=*', () => {
    const any = new DebugAccess(
      AppConfig.fromEnv({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_ALLOWED_HOSTS: '*' }),
      logger,
    );
    expect(any.allows(from('127.0.0.1', 'rebind.attacker.example'))).toBe(true);
  });

  it('refuses a malformed PROFILER_ALLOWED_HOSTS at start', () => {
    expect(() => AppConfig.fromEnv({ PROFILER_ALLOWED_HOSTS: 'http://shop.test' })).toThrow(/PROFILER_ALLOWED_HOSTS/);
  });

  describe('a request a page of another origin made', () => {
    const own = 'http://127.0.0.1:3000';
    it.each([
      [{ origin: 'https://evil.example' }],
      [{ origin: 'null' }],
      [{ origin: 'http://127.0.0.1:3001' }],
      [{ origin: 'https://127.0.0.1:3000' }],
      [{ origin: 'http://127.0.0.1' }],
      [{ origin: 'http://localhost:3000' }],
      [{ origin: 'http://127.0.0.1:3000.evil.example' }],
      [{ origin: '' }],
      [{ 'sec-fetch-site': 'cross-site' }],
      [{ 'sec-fetch-site': 'same-site' }],
      [{ 'sec-fetch-site': 'Cross-Site ' }],
      [{ 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:5173' }],
      // A page can shape Origin (or have none sent), never Sec-Fetch-Site: either saying "foreign" is enough.
      [{ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }],
      [{ 'sec-fetch-site': 'cross-site', origin: own }],
    ])('sees no debug details, its client and host allowed: %j', (headers) => {
      const request = from('127.0.0.1', '127.0.0.1:3000', headers);
      expect(access.allows(request)).toBe(false);
      expect(access.allowsClient(request)).toBe(true);
    });

    it.each([
      [{}],
      [{ origin: own }],
      [{ origin: 'HTTP://127.0.0.1:3000' }],
      [{ 'sec-fetch-site': 'same-origin', origin: own }],
      [{ 'sec-fetch-site': 'same-origin' }],
      [{ 'sec-fetch-site': 'none' }],
    ])('sees them from its own origin, or from no page: %j', (headers) => {
      expect(access.allows(from('127.0.0.1', '127.0.0.1:3000', headers))).toBe(true);
    });

    it('compares the default port away', () => {
      expect(access.allows(from('127.0.0.1', 'localhost:80', { origin: 'http://localhost' }))).toBe(true);
      expect(access.allows(from('127.0.0.1', 'localhost', { origin: 'http://localhost:80' }))).toBe(false);
    });
  });
});
