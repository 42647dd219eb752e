import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { seedCatalogue } from '../src/database/seed/catalogue.seeder.js';
import { ShopDb } from '../src/database/shop-db.js';
import { PROJECT_DIR } from '../src/config/app-config.js';
import { ErrorFixturesModule } from './fixtures/error-fixtures.module.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { loggedInCustomer } from './support/customers.js';
import { storedProfile } from './support/profiler.js';

const ADDRESS = { name: 'Ada Lovelace', street: '12 Rue de Rivoli', postcode: '75001', city: 'Paris', country: 'FR' };
const SECRET = 'SECRET-MCP-7731';
/** Where the router throws its not-found exception, in the TypeScript source. */
const THROW_LINE =
  readFileSync(join(PROJECT_DIR, 'src/lifecycle/listeners/router.listener.ts'), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('throw new NotFoundHttpException(')) + 1;

type ToolAnswer = CallToolResult & { structuredContent: Record<string, unknown> };
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** An assistant connected to the profiler's MCP endpoint with the SDK's own client (Streamable HTTP). */
async function assistant(base: string): Promise<Client> {
  const client = new Client({ name: 'shopkernel-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/_profiler/mcp`)));
  return client;
}

describe('The profiler over MCP, Streamable HTTP (e2e)', () => {
  let app: NestExpressApplication;
  let base: string;
  let client: Client;
  const tokens: Record<'notFound' | 'checkout' | 'huge' | 'secret', string> = {
    notFound: '',
    checkout: '',
    huge: '',
    secret: '',
  };
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolAnswer;

  beforeAll(async () => {
    app = await createTestApp({ imports: [ErrorFixturesModule, ProfilerFixturesModule] });
    await seedCatalogue(app.get(ShopDb));
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const server = app.getHttpServer();
    tokens.notFound = (await request(server).get('/no/such/page').set('Host', 'shop.test').expect(404)).headers[
      'x-debug-token'
    ];
    const customer = await loggedInCustomer(app);
    const cart = await customer.get('/api/cart').set('Host', 'shop.test').expect(200);
    await customer
      .post('/api/cart/lines')
      .set('Host', 'shop.test')
      .set('X-CSRF-Token', cart.body.csrfToken)
      .send({ productId: 1, quantity: 2 })
      .expect(201);
    const csrf = (await customer.get('/api/csrf-token/checkout').set('Host', 'shop.test').expect(200)).body.token;
    const placed = await customer
      .post('/api/checkout')
      .set('Host', 'shop.test')
      .set('X-CSRF-Token', csrf)
      .set('Accept', 'application/json')
      .send(ADDRESS)
      .expect(201);
    tokens.checkout = placed.headers['x-debug-token'];
    tokens.huge = (await request(server).get('/errors/huge-log').set('Host', 'shop.test').expect(500)).headers[
      'x-debug-token'
    ];
    tokens.secret = (
      await request(server)
        .get(`/pfx/secret-boom?token=${SECRET}`)
        .set('Host', 'shop.test')
        .set('Authorization', `Bearer ${SECRET}`)
        .set('X-Test-Password', SECRET)
        .set('X-Test-Key', SECRET)
        .expect(500)
    ).headers['x-debug-token'];
    for (const token of Object.values(tokens)) await storedProfile(app, token);
    client = await assistant(base);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('lists its tools, each with a JSON schema, and the profiles as resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'search_profiles',
      'latest_failure',
      'get_profile',
      'get_exception',
      'get_logs',
      'get_queries',
      'get_timeline',
      'compare_profiles',
    ]);
    for (const tool of tools) {
      expect([tool.name, tool.inputSchema.type, typeof tool.description]).toEqual([tool.name, 'object', 'string']);
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const logs = tools.find((t) => t.name === 'get_logs')!;
    expect(logs.inputSchema.required).toEqual(['token']);
    expect((logs.inputSchema.properties as Record<string, { enum?: string[] }>).level.enum).toEqual([
      'debug',
      'info',
      'notice',
      'warning',
      'error',
      'critical',
      'alert',
      'emergency',
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([`profile://${tokens.notFound}`]));
    const read = await client.readResource({ uri: `profile://${tokens.notFound}` });
    const json = JSON.parse((read.contents[0] as { text: string }).text);
    expect(json).toMatchObject({ token: tokens.notFound, status: 404, exception: { class: 'NotFoundHttpException' } });
  });

  it('lists the profile template, and each resource with its title and type', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        name: 'profile',
        uriTemplate: 'profile://{token}',
        title: 'Profiled request',
        description: 'A profiled request: its summary as JSON',
        mimeType: 'application/json',
      },
    ]);
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === `profile://${tokens.notFound}`)).toEqual({
      uri: `profile://${tokens.notFound}`,
      name: 'GET http://shop.test/no/such/page -> 404',
      title: 'Profiled request',
      description: 'A profiled request: its summary as JSON',
      mimeType: 'application/json',
    });
  });

  it.each([
    ['profile://zzzzzz', 'not a token'],
    ['profile://', 'no token'],
    ['profile://ABCDEF', 'a token in upper case'],
    [`profile://abc`, 'a short token'],
    ['profile://abcdef/extra', 'a path after the token'],
    ['not a uri', 'no URI'],
    ['::::', 'no scheme'],
    ['http://[::1', 'a URI that does not parse'],
    ['file:///etc/passwd', 'another scheme'],
    ['', 'nothing'],
  ])('answers resources/read of %j (%s) with -32002, Resource not found', async (uri) => {
    const error = await client.readResource({ uri }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    const { code, message, data } = error as McpError;
    expect({ code, message, data }).toEqual({
      code: -32002,
      message:
        `MCP error -32002: Resource not found: ${JSON.stringify(uri)} ` +
        "(the profiler's resources are profile://{token}, a token being 6 lowercase hexadecimal characters).",
      data: { uri },
    });
  });

  it('answers resources/read of a token the store does not have with -32002, saying so', async () => {
    const error = (await client.readResource({ uri: 'profile://abcdef' }).catch((e: unknown) => e)) as McpError;
    expect({ code: error.code, message: error.message }).toEqual({
      code: -32002,
      message:
        'MCP error -32002: Resource not found: "profile://abcdef" ' +
        '(no such profile in the store: it was never recorded, or retention removed it).',
    });
  });

  it('advertises no list-changed notifications, which it never sends', () => {
    const capabilities = client.getServerCapabilities()!;
    expect(capabilities.tools).toEqual({ listChanged: false });
    expect(capabilities.resources).toEqual({});
  });

  it("summarises the 404: status, route, time, logs and the exception, linking to the profile's page", async () => {
    const answer = await call('get_profile', { token: tokens.notFound });
    const lines = textOf(answer).split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^GET http://shop\\.test/no/such/page -> 404 Not Found in [\\d.]+ m?s \\(profile ${tokens.notFound}, `,
      ),
    );
    expect(lines[1]).toBe('Route: (none); controller: (none)');
    expect(lines[3]).toBe('Exception: NotFoundHttpException: No route found for "GET http://shop.test/no/such/page"');
    expect(lines.at(-1)).toBe(`Profile page: ${base}/_profiler/${tokens.notFound}`);
    expect(answer.structuredContent).toMatchObject({
      token: tokens.notFound,
      status: 404,
      route: null,
      exception: { class: 'NotFoundHttpException' },
      logs: { errors: 1 },
    });
  });

  it('shows the exception chain with source-mapped frames and the code that threw', async () => {
    const text = textOf(await call('get_exception', { token: tokens.notFound, frames: 2 }));
    expect(text).toContain('NotFoundHttpException (404): No route found for "GET http://shop.test/no/such/page"');
    expect(text).toContain(
      `  at RouterListener.onKernelRequest (src/lifecycle/listeners/router.listener.ts:${THROW_LINE})`,
    );
    expect(text).toMatch(new RegExp(`> ${THROW_LINE} \\| +if \\(error instanceof ResourceNotFoundException\\) throw`));
    expect(text).toContain('Caused by: ResourceNotFoundException');
    expect(text.split('\n').filter((l) => l.startsWith('  at ')).length).toBeLessThanOrEqual(4);
  });

  it('reads the checkout POST: its summary, grouped queries with their callers, and its timeline', async () => {
    const summary = await call('get_profile', { token: tokens.checkout });
    expect(textOf(summary).split('\n')[0]).toMatch(/^POST http:\/\/shop\.test\/api\/checkout -> 201 Created in /);
    expect(summary.structuredContent).toMatchObject({ route: 'api_checkout', status: 201 });
    const queries = await call('get_queries', { token: tokens.checkout });
    expect(textOf(queries)).toMatch(/^\d+ queries \(\d+ distinct statements\) in [\d.]+ m?s/);
    expect(textOf(queries)).toMatch(/insert into "orders"/);
    const groups = queries.structuredContent.groups as Array<{ sql: string; callers: string[] }>;
    expect(groups.find((g) => g.sql.startsWith('insert into "orders"'))!.callers[0]).toMatch(
      /^src\/shop\/orders\/[a-z.-]+\.ts:\d+$/,
    );
    const timeline = await call('get_timeline', { token: tokens.checkout });
    expect(textOf(timeline)).toMatch(/^Total [\d.]+ m?s, [\d.]+ m?s until kernel\.response\nkernel\.request: /);
    expect(timeline.structuredContent.controller).toMatchObject({ name: 'OrdersApiController::place' });
  });

  it('reads the 404 and the checkout with every tool, without an error, each answer a few kilobytes', async () => {
    for (const token of [tokens.notFound, tokens.checkout])
      for (const name of ['get_profile', 'get_exception', 'get_logs', 'get_queries', 'get_timeline']) {
        const answer = await call(name, { token });
        expect([token, name, answer.isError ?? false, JSON.stringify(answer).length < 8192]).toEqual([
          token,
          name,
          false,
          true,
        ]);
        expect(textOf(answer)).toContain(`Profile page: ${base}/_profiler/${token}`);
      }
    const prefix = await call('search_profiles', {
      token: tokens.checkout.slice(0, 4),
      until: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((prefix.structuredContent.profiles as Array<{ token: string }>).map((p) => p.token)).toContain(
      tokens.checkout,
    );
  });

  it('searches with the search page filters and finds the latest failure', async () => {
    const posts = await call('search_profiles', { method: 'POST', url: '/api/checkout' });
    expect(posts.structuredContent.total).toBe(1);
    expect(textOf(posts).split('\n')[1]).toMatch(
      new RegExp(`^${tokens.checkout} POST 201 http://shop\\.test/api/checkout \\(api_checkout\\)`),
    );
    // Full text: what the request logged and threw, redacted: its secret finds nothing.
    const logged = await call('search_profiles', { text: 'login failed', status: '5' });
    expect([logged.structuredContent.total, textOf(logged).split('\n')[1]?.slice(0, 6)]).toEqual([1, tokens.secret]);
    expect((await call('search_profiles', { text: SECRET })).structuredContent.total).toBe(0);
    expect(
      (await call('search_profiles', { text: 'insert into orders', method: 'POST' })).structuredContent.total,
    ).toBe(1);
    const failure = await call('latest_failure', {});
    expect(failure.structuredContent.token).toBe(tokens.secret);
    const bad = await client.callTool({ name: 'get_profile', arguments: { token: 'nothex' } });
    expect(bad.isError).toBe(true);
    const unknown = await call('get_profile', { token: 'abcdef' });
    expect([unknown.isError, textOf(unknown)]).toEqual([
      true,
      'No profile abcdef in the store: it was never recorded, or retention removed it.',
    ]);
  });

  it('keeps every answer short for a profile with thousands of log entries', async () => {
    for (const [name, args] of [
      ['get_profile', {}],
      ['get_logs', {}],
      ['get_logs', { level: 'debug', limit: 200 }],
      ['get_exception', { frames: 30 }],
      ['get_timeline', {}],
      ['get_queries', {}],
    ] as const) {
      const answer = await call(name, { token: tokens.huge, ...args });
      expect([name, args, answer.isError ?? false]).toEqual([name, args, false]);
      expect([name, args, JSON.stringify(answer).length < 8192]).toEqual([name, args, true]);
    }
    const logs = await call('get_logs', { token: tokens.huge, level: 'info', channel: 'fixture' });
    expect(textOf(logs).split('\n')[0]).toMatch(
      /^\d+ of 2000 stored entries at INFO or above on channel "fixture" \(errors 1, /,
    );
    // The fixture's entries fill what the profile keeps after the kernel's own (one per listener called).
    const matching = Number(/^(\d+) of 2000/.exec(textOf(logs))![1]);
    expect(matching).toBeGreaterThan(1900);
    expect(textOf(logs).split('\n')).toHaveLength(1 + 50 + 2);
    expect(textOf(logs)).toContain(
      `\n... ${matching - 50} more: ask for a higher level, a channel or fewer entries\nProfile page: `,
    );
  });

  it('answers with the redacted data the panels show', async () => {
    const answers = await Promise.all([
      call('get_profile', { token: tokens.secret }),
      call('get_logs', { token: tokens.secret, level: 'debug', limit: 200 }),
      call('get_exception', { token: tokens.secret }),
      call('search_profiles', { url: 'secret-boom' }),
      client.readResource({ uri: `profile://${tokens.secret}` }),
    ]);
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(SECRET);
    expect(textOf(answers[0])).toContain('GET http://shop.test/pfx/secret-boom?token=******');
    expect(textOf(answers[1])).toContain('[ERROR] security: Login failed for ada with ******');
  });

  it('compares two profiles, and a profile with the previous request of its route', async () => {
    const server = app.getHttpServer();
    const small = (await request(server).get('/products?limit=12').set('Host', 'shop.test').expect(200)).headers[
      'x-debug-token'
    ];
    const broken = (await request(server).get('/products?page=999').set('Host', 'shop.test').expect(404)).headers[
      'x-debug-token'
    ];
    await storedProfile(app, broken);
    const answer = await call('compare_profiles', { a: small, b: broken });
    expect(textOf(answer).split('\n').slice(0, 2)).toEqual([
      `a: ${small} GET http://shop.test/products?limit=12 -> 200`,
      `b: ${broken} GET http://shop.test/products?page=999 -> 404`,
    ]);
    expect(answer.structuredContent.comparisonUrl).toBe(`${base}/_profiler/${small}/compare/${broken}`);
    const previous = await call('compare_profiles', { a: broken });
    expect((previous.structuredContent.a as { token: string }).token).toBe(small);
    expect((previous.structuredContent.b as { token: string }).token).toBe(broken);
  });
});

describe('The MCP endpoint obeys the profiler access rules (e2e)', () => {
  const post = (app: NestExpressApplication, host: string, headers: Record<string, string> = {}) =>
    request(app.getHttpServer())
      .post('/_profiler/mcp')
      .set('Host', host)
      .set('Accept', 'application/json, text/event-stream')
      .set(headers)
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

  it('answers a client whose address is not allowed, and a Host it does not serve, as an unknown path', async () => {
    const app = await createTestApp({ env: { PROFILER_ALLOWED_IPS: '10.0.0.0/8' } });
    try {
      await app.listen(0, '127.0.0.1');
      const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      await expect(assistant(base)).rejects.toThrow(/404/);
      const refused = await post(app, 'shop.test').expect(404);
      const unknown = await request(app.getHttpServer())
        .post('/_qrofiler/mcp')
        .set('Host', 'shop.test')
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        .expect(404);
      expect(refused.body.detail).toBe(unknown.body.detail.replace('/_qrofiler', '/_profiler'));
    } finally {
      await app.close();
    }
    const open = await createTestApp();
    try {
      await post(open, 'rebind.attacker.example').expect(404);
      const listed = await post(open, 'shop.test').expect(200);
      expect(listed.body.result.tools).toHaveLength(8);
      expect(listed.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await open.close();
    }
  });

  it('does not exist for a page of another site (Origin), and answers 405 to a GET (no event stream)', async () => {
    const app = await createTestApp({ env: { CORS_ALLOW_ORIGINS: '*' } });
    try {
      const foreign = await post(app, 'shop.test', { Origin: 'https://evil.example' }).expect(404);
      expect(foreign.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Not Found' });
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
      await post(app, 'shop.test', { Origin: 'http://shop.test' }).expect(200);
      const get = await request(app.getHttpServer()).get('/_profiler/mcp').set('Host', 'shop.test').expect(405);
      expect(get.headers.allow).toBe('POST');
    } finally {
      await app.close();
    }
  });
});
