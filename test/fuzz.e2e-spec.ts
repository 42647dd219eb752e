import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { startTestServer, type TestServer } from './support/browser.js';
import { malformedRequests, XSS, type MalformedRequest } from './support/malformed-requests.js';
import { storedProfiles } from './support/profiler.js';
import { rawRequest, type RawResponse } from './support/raw-http.js';

const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const CONCURRENCY = 8;

interface Failure {
  kind: string;
  why: string;
  request: string;
  answer: string;
}

describe(`Fuzzing the server with ${COUNT} malformed requests (seed ${SEED}) (e2e)`, () => {
  let server: TestServer;
  let port: number;
  const failures: Failure[] = [];
  const statuses = new Map<string, Map<string, number>>();
  const tokens: string[] = [];

  beforeAll(async () => {
    // The store keeps every profile the run makes (retention off), so none can be missing at the end.
    server = await startTestServer({ env: { PROFILER_MAX_PROFILES: '0', PROFILER_BUFFER_LIMIT: String(COUNT * 2) } });
    port = (server.app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await server?.app.close();
  });

  function judge(sent: MalformedRequest, answer: RawResponse): void {
    const outcome = answer.status === null ? answer.outcome : String(answer.status);
    const byKind = statuses.get(sent.kind) ?? new Map<string, number>();
    byKind.set(outcome, (byKind.get(outcome) ?? 0) + 1);
    statuses.set(sent.kind, byKind);
    const fail = (why: string): void => {
      failures.push({
        kind: sent.kind,
        why,
        request: sent.bytes.subarray(0, 300).toString('latin1'),
        answer: answer.raw.slice(0, 600),
      });
    };
    if (answer.status === null) {
      // A closed or reset connection is a fine answer to bytes that are not HTTP; waiting forever is not.
      if (answer.outcome === 'timeout') fail('no answer and the connection stayed open');
      return;
    }
    if (answer.status < 400 || answer.status > 499) fail(`status ${answer.status}`);
    if (/^text\/html/.test(answer.headers['content-type'] ?? '') && answer.raw.includes(XSS))
      fail('the script marker came back unescaped in HTML');
    if (/\r\nset-cookie: evil=/i.test(answer.raw)) fail('an injected header came back as a header');
    const token = answer.headers['x-debug-token'];
    if (token) tokens.push(token);
  }

  it('answers every one with a 4xx or a closed connection, never a 5xx, and keeps serving', async () => {
    const queue = malformedRequests(SEED, COUNT);
    let sent = 0;
    const worker = async (): Promise<void> => {
      for (let next = queue.next(); !next.done; next = queue.next()) {
        const malformed = next.value;
        sent++;
        const answer = await rawRequest(port, malformed.bytes, {
          endAfterWrite: malformed.endAfterWrite,
          readBody: true,
          // A hang, not a slow answer: the server answers or closes each at once (a parse error, the client's end),
          // and a busy machine takes seconds, never this long.
          timeoutMs: 30_000,
        });
        judge(malformed, answer);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(sent).toBe(COUNT);

    const report = [...statuses]
      .map(([kind, counts]) => `${kind}: ${[...counts].map(([s, n]) => `${s}×${n}`).join(' ')}`)
      .join('\n');
    process.stdout.write(`Fuzz (seed ${SEED}, ${COUNT} requests):\n${report}\n`);
    if (failures.length > 0) {
      const summary = failures
        .map((f) => `${f.kind} | ${f.why} | ${JSON.stringify(f.request.slice(0, 160))}`)
        .join('\n');
      process.stdout.write(`${failures.length} failure(s):\n${summary}\n`);
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(statuses.size).toBeGreaterThanOrEqual(14);

    // Still serving: a page, and the profiler.
    const page = await request(server.app.getHttpServer()).get('/products');
    expect(page.status).toBe(200);
    const search = await request(server.app.getHttpServer()).get('/_profiler/search?limit=10');
    expect(search.status).toBe(200);
  }, 170_000);

  it('stored a profile for every answer that carried a token, each once', async () => {
    expect(tokens.length).toBeGreaterThan(COUNT / 2);
    expect(new Set(tokens).size).toBe(tokens.length);
    const { total } = await storedProfiles(server.app, { limit: 1 });
    // Every token sent is stored; the two requests of the check above add theirs.
    expect(total).toBeGreaterThanOrEqual(tokens.length);
    for (const token of tokens.filter((_, i) => i % 97 === 0)) {
      const { rows } = await storedProfiles(server.app, { token, limit: 1 });
      expect(rows.map((row) => row.token)).toContain(token);
    }
  });
});
