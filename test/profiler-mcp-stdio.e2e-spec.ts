import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { buildApp, TEST_BUILD_DIR } from './support/app-process.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * `npm run profiler:mcp`: the server an assistant starts as a command, reading the store the application wrote,
 * driven by the SDK's own stdio client. Its standard output carries only the protocol; its log goes to stderr.
 */
describe('The profiler over MCP, stdio (e2e)', () => {
  let dir: string;
  let cli: string;
  let env: Record<string, string>;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopkernel-mcp-'));
    env = {
      PATH: process.env.PATH ?? '',
      APP_ENV: 'dev',
      PORT: '3100',
      PROFILER_DSN: `sqlite:${join(dir, 'profiler.sqlite')}`,
      DATABASE_URL: `sqlite:${join(dir, 'shop.sqlite')}`,
    };
    const app = await createTestApp({ env: { PROFILER_DSN: env.PROFILER_DSN, DATABASE_URL: env.DATABASE_URL } });
    token = (await request(app.getHttpServer()).get('/no/such/page').set('Host', 'shop.test').expect(404)).headers[
      'x-debug-token'
    ];
    await storedProfile(app, token);
    await app.close();
    buildApp();
    cli = join(TEST_BUILD_DIR, 'profiler', 'mcp', 'profiler-mcp.cli.js');
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the tools on the store the application wrote, logging on stderr only', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli], env, stderr: 'pipe' });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const client = new Client({ name: 'shopkernel-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools).toHaveLength(8);
      const answer = (await client.callTool({ name: 'get_profile', arguments: { token } })) as CallToolResult;
      const lines = textOf(answer).split('\n');
      expect(lines[0]).toMatch(new RegExp(`^GET http://shop\\.test/no/such/page -> 404 Not Found in [\\d.]+ m?s`));
      expect(lines.at(-1)).toBe(`Profile page: http://127.0.0.1:3100/_profiler/${token}`);
      const found = (await client.callTool({
        name: 'search_profiles',
        arguments: { status: '404' },
      })) as CallToolResult;
      expect(textOf(found).split('\n')[1]).toMatch(new RegExp(`^${token} GET 404 http://shop\\.test/no/such/page`));
      const resource = await client.readResource({ uri: `profile://${token}` });
      expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ token, status: 404 });
    } finally {
      await client.close();
    }
    // The application's start is logged as usual (LOG_LEVEL=info in development), on stderr, not in the protocol.
    expect(log).toContain('NestApplication.INFO: Nest application successfully started');
  }, 60_000);

  it('refuses to start with the profiler off, saying why', () => {
    const run = spawnSync(process.execPath, [cli], {
      env: { ...env, APP_DEBUG: '0' },
      input: '',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect([run.status, run.stdout]).toEqual([1, '']);
    expect(run.stderr).toContain(
      'The profiler is off (APP_DEBUG=0 or PROFILER_ENABLED=0): there is nothing to serve.\n',
    );
  });
});
