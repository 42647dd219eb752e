import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { fullyDecoded } from '../src/lifecycle/redaction/url-masking.js';
import { ProfilerStorage } from '../src/profiler/storage/profiler-storage.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile, storedProfiles } from './support/profiler.js';
import { rawRequest } from './support/raw-http.js';
import { startStubService, type StubService } from './support/stub-service.js';

/**
 * Issue 44, finding 2: a secret in a URL is masked wherever the URL goes (the printed log, the stored profile, the
 * search and profile pages, the MCP answers, the OTLP export), however the URL writes it: quotes or brackets in the
 * name, percent-encoding (once or more), credentials or queries nested in a value, tokens under innocent names.
 * Every secret is `Zk<two digits>…`, so that finding `Zk\d\d` anywhere, as written or decoded, is a leak.
 */
const TARGETS: Array<[method: string, target: string, headers?: Record<string, string>]> = [
  ['GET', '/products?x"token=Zk01a&page=2'],
  ['GET', '/products?token"=Zk02a'],
  ['GET', '/products?<token>=Zk03a'],
  ['GET', '/products?a[token]=Zk04a'],
  ['GET', '/products?q=Bearer%20ghp_Zk05abcdefghijklmnopqrstuvwxyz0123'],
  ['GET', '/products?next=https%3A%2F%2Fu%3AZk06a%40h.example%2F'],
  ['GET', '/products?next=%2Fcart%3Ftoken%3DZk07a&page=2'],
  ['GET', '/nowhere?x"token=Zk08a'],
  ['GET', '/products?%2570assword=Zk09a'],
  ['GET', '/nowhere?q=glpat-Zk10abcdefghijklmnopq'],
  ['GET', '/products?q=1;password=Zk11a'],
  ['GET', '/products?state=eyJhbGciOiJIUzI1NiJ9%2EeyJzdWIiOiJaazEyIn0%2EZk12sig'],
  ['GET', '/products?q=sk-proj-Zk13AbCdEfGhIjKlMnOp'],
  ['GET', '/nowhere', { Referer: 'https://partner.example/back?next=https%3A%2F%2Fu%3AZk14a%40h' }],
  ['GET', '/products?q=%252Fa%253Fpassword%253DZk15a'],
  ['GET', "/products?x'api_key=Zk16a"],
  ['PUT', '/products?x"token=Zk17a'],
  ['GET', '/products?q=Bearer+Zk18a0123456789'],
  ['GET', '/nowhere?next=%2Fa%3Fb%3D1%3Bsecret%3DZk19a'],
  ['GET', '/products?x%3Cpassword%3E=Zk20a'],
];

/** The token of a profile written straight to the store, as an older version wrote it. */
const LEGACY = 'fedcba';

/** The planted secrets found in `text`, as written or decoded. */
function leaks(text: string): string[] {
  return [...new Set([...`${text}\n${fullyDecoded(text) ?? ''}`.matchAll(/Zk\d\d\w*/g)].map((m) => m[0]))];
}

/** An OTLP/HTTP receiver keeping the JSON bodies the exporter sends. */
async function otlpReceiver(bodies: string[]): Promise<StubService> {
  return startStubService((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
}

describe('Secrets in URLs, wherever a URL goes (e2e)', () => {
  let app: NestExpressApplication;
  let port: number;
  let receiver: StubService;
  const exported: string[] = [];
  let printed = '';
  const tokens: string[] = [];
  const spies: Array<{ mockRestore(): void }> = [];

  beforeAll(async () => {
    receiver = await otlpReceiver(exported);
    // The printed log: every line the application writes, kept instead of shown.
    const write = (chunk: string | Uint8Array) => ((printed += String(chunk)), true);
    spies.push(jest.spyOn(process.stdout, 'write').mockImplementation(write));
    spies.push(jest.spyOn(process.stderr, 'write').mockImplementation(write));
    app = await createTestApp({
      env: { LOG_LEVEL: 'debug', PROFILER_OTLP_ENDPOINT: receiver.base, OTEL_SERVICE_NAME: 'url-masking' },
    });
    await seedCatalogue(app.get(ShopDb));
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
    for (const [method, target, headers = {}] of TARGETS) {
      const lines = [`${method} ${target} HTTP/1.1`, 'Host: shop.test', 'Connection: close', 'Accept: text/html'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      if (method === 'PUT') lines.push('Content-Length: 0');
      const answer = await rawRequest(port, `${lines.join('\r\n')}\r\n\r\n`, { readBody: true });
      expect([target, answer.outcome]).toEqual([target, 'response']);
      tokens.push(answer.headers['x-debug-token']);
    }
    for (const token of tokens) await storedProfile(app, token);
    // A profile an older version stored with its URL raw: it is read masked.
    const storage = app.get(ProfilerStorage);
    const stored = (await storage.read(tokens[0]))!;
    await storage.write([{ ...stored, token: LEGACY, url: 'http://shop.test/legacy?x"token=Zk30a&page=3' }]);
    tokens.push(LEGACY);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    for (const spy of spies) spy.mockRestore();
  });

  const page = async (path: string): Promise<string> => {
    const answer = await rawRequest(
      port,
      `GET ${path} HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\nAccept: text/html\r\n\r\n`,
      { readBody: true },
    );
    expect([path, answer.status]).toEqual([path, 200]);
    return answer.body;
  };

  it('profiles every request', () => {
    expect(tokens.filter((t) => /^[0-9a-f]{6,}$/.test(t ?? ''))).toHaveLength(TARGETS.length + 1);
  });

  it('prints no secret in the log lines, and still prints the masked URLs', () => {
    expect(leaks(printed)).toEqual([]);
    const shown = (part: string) => printed.split('\n').filter((line) => line.includes(part)).length;
    expect(shown('"request_uri":"http://shop.test/products?x%22token=******&page=2"')).toBe(1);
    expect(shown('"request_uri":"http://shop.test/products?next=/cart?token=******&page=2"')).toBe(1);
    expect(
      shown(
        'Uncaught Exception NotFoundHttpException: "No route found for "GET http://shop.test/nowhere?x%22token=******""',
      ),
    ).toBe(1);
  });

  it('stores no secret in the profiles, and keeps their URLs readable', async () => {
    const records = await Promise.all(tokens.filter((t) => t !== LEGACY).map((t) => storedProfile(app, t)));
    for (const record of records) expect([record.url, leaks(JSON.stringify(record))]).toEqual([record.url, []]);
    expect(records.map((r) => r.url).slice(0, 7)).toEqual([
      'http://shop.test/products?x%22token=******&page=2',
      'http://shop.test/products?token%22=******',
      'http://shop.test/products?%3Ctoken%3E=******',
      'http://shop.test/products?a[token]=******',
      'http://shop.test/products?q=Bearer%20******',
      'http://shop.test/products?next=https://u:******@h.example/',
      'http://shop.test/products?next=/cart?token=******&page=2',
    ]);
    const { rows } = await storedProfiles(app, { limit: 100 });
    expect(leaks(JSON.stringify(rows))).toEqual([]);
  });

  it('shows no secret on the search page or the profile pages', async () => {
    expect(leaks(await page('/_profiler/search?limit=100'))).toEqual([]);
    for (const token of tokens) {
      for (const panel of ['request', 'exception', 'logs', 'config']) {
        const html = await page(`/_profiler/${token}?panel=${panel}`);
        expect([token, panel, leaks(html)]).toEqual([token, panel, []]);
      }
    }
  }, 120_000);

  it('answers no secret over MCP (search_profiles, get_profile)', async () => {
    const client = new Client({ name: 'url-masking-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/_profiler/mcp`)));
    try {
      const answers: CallToolResult[] = [
        (await client.callTool({ name: 'search_profiles', arguments: { limit: 50 } })) as CallToolResult,
      ];
      for (const token of tokens)
        answers.push((await client.callTool({ name: 'get_profile', arguments: { token } })) as CallToolResult);
      for (const answer of answers) expect(answer.isError ?? false).toBe(false);
      expect(leaks(JSON.stringify(answers))).toEqual([]);
      expect(JSON.stringify(answers)).toContain('http://shop.test/legacy?x%22token=******&page=3');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('exports no secret to the OTLP collector', async () => {
    const exportedAll = () =>
      tokens.filter((t) => t !== LEGACY).every((t) => exported.some((body) => body.includes(t)));
    // The exporter sends every half second.
    for (let i = 0; i < 400 && !exportedAll(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exportedAll()).toBe(true);
    expect(leaks(exported.join('\n'))).toEqual([]);
    expect(exported.join('\n')).toContain('http://shop.test/products?x%22token=******&page=2');
  }, 60_000);
});
