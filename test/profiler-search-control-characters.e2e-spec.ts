import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse } from 'node-html-parser';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createTestApp } from './support/create-test-app.js';
import { describePostgres, dropSchema, POSTGRES_URL } from './support/postgres.js';
import { storedProfiles } from './support/profiler.js';

/**
 * A NUL or another control character in a search filter is matched literally, with the same answer on both
 * profile stores (no stored URL holds one, so such a filter lists nothing), and never reads as a broken store:
 * the search page and MCP's search_profiles alike.
 */

const HOST = 'shop.test';
const text = (html: string, selector: string) => (parse(html).querySelector(selector)?.text ?? '').trim();

/** URL filters, as the search form sends them: none matches a recorded URL. */
const NOTHING = [
  '%00',
  '%23%00abc',
  '%23%00',
  'a%00b',
  'products%00',
  '%00products',
  '%00%00%00',
  '%25%00',
  '%01',
  '%23%01abc',
  '%0A',
  '%0D%0A',
  '%1F',
  '%7F',
  '%C2%85',
  'products%09',
  '%23%09123',
];

function describeStore(name: string, env: () => Record<string, string>, teardown: () => Promise<void>): void {
  describe(`${name} profile store`, () => {
    let app: NestExpressApplication;
    let client: Client;
    const search = (query: string) =>
      request(app.getHttpServer()).get(`/_profiler/search?limit=100&${query}`).set('Host', HOST);
    const expectList = async (query: string, results: number) => {
      const res = await search(query);
      expect({ query, status: res.status, storeError: text(res.text, '.store-error') }).toEqual({
        query,
        status: 200,
        storeError: '',
      });
      expect({ query, heading: text(res.text, '#results') }).toEqual({ query, heading: `${results} results found` });
    };
    const call = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'search_profiles', arguments: args })) as CallToolResult & {
        structuredContent: { total: number };
      };

    beforeAll(async () => {
      app = await createTestApp({ env: env() });
      await app.listen(0, '127.0.0.1');
      for (const path of ['/products?q=tea', '/products/1', '/cart', '/no/such/page?x=%01'])
        await request(app.getHttpServer()).get(path).set('Host', HOST);
      await storedProfiles(app);
      const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      client = new Client({ name: 'shopkernel-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/_profiler/mcp`)));
    });

    afterAll(async () => {
      await client?.close();
      await app?.close();
      await teardown();
    });

    it.each(NOTHING)('lists nothing for url=%s, with no store error', (url) => expectList(`url=${url}`, 0));

    it('still finds what a URL filter without control characters names', async () => {
      // (A URL filter lists the profiler's own requests too: these needles are in no search page's URL.)
      await expectList('url=products%2F1', 1);
      await expectList('url=page%3Fx%3D%2501', 1);
    });

    it('reads a NUL in the full-text query as a word break, as any punctuation', async () => {
      await expectList('q=%00', 0);
      await expectList('q=tea%00', (await storedProfiles(app, { text: 'tea' })).total);
    });

    it('refuses an IP, method or token holding a NUL as a client error, before any store', async () => {
      for (const [query, message] of [
        ['ip=%00', 'ip must be (the start of) an IPv4 or IPv6 address'],
        ['ip=127%00', 'ip must be (the start of) an IPv4 or IPv6 address'],
        ['method=GET%00', 'method must be an HTTP method'],
        ['token=%00', 'token must be up to 6 lowercase hexadecimal characters'],
      ]) {
        const res = await search(query).set('Accept', 'application/json');
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        expect(res.body.detail).toContain(message);
      }
    });

    it('answers search_profiles alike over MCP', async () => {
      for (const url of ['\0', '#\0abc', 'a\0b', 'products\0', '\u0001', '#\u0001abc', '\n', '\u007f']) {
        const answer = await call({ url });
        expect({ url, isError: answer.isError ?? false, total: answer.structuredContent?.total }).toEqual({
          url,
          isError: false,
          total: 0,
        });
        expect((answer.content[0] as { text: string }).text).toBe('No profiled request matches.');
      }
      expect((await call({ url: 'products/1' })).structuredContent.total).toBe(1);
      expect((await call({ text: '\0' })).structuredContent.total).toBe(0);
      for (const args of [{ ip: '\0' }, { method: 'GET\0' }, { token: '\0' }]) {
        const answer = await call(args);
        expect({ args, isError: answer.isError }).toEqual({ args, isError: true });
        expect((answer.content[0] as { text: string }).text).not.toMatch(/store|unterminated/i);
      }
    });
  });
}

describeStore(
  'SQLite',
  () => ({}),
  async () => undefined,
);

const schema = `search_ctl_${process.pid}_${randomBytes(3).toString('hex')}`;
describePostgres('PostgreSQL profile store (control characters)')('on PostgreSQL', () => {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('schema', schema);
  describeStore(
    'PostgreSQL',
    () => ({ PROFILER_DSN: url.toString() }),
    () => dropSchema(schema),
  );
});
