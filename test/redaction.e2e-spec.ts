import Database from 'better-sqlite3';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'node-html-parser';
import pg from 'pg';
import request from 'supertest';
import { ProfilerService } from '../src/profiler/profiler.service.js';
import { MASK } from '../src/lifecycle/redaction/redactor.js';
import { ProfileCodec } from '../src/profiler/storage/profile-codec.js';
import { createTestApp } from './support/create-test-app.js';
import { describePostgres, dropSchema, POSTGRES_URL } from './support/postgres.js';
import { settle, storedProfile } from './support/profiler.js';
import { rawRequest } from './support/raw-http.js';
import type { ProfileData } from './support/profile-data.js';

const SECRETS = {
  password: 'hunter2-very-secret',
  bearer: 'tok_live_bearer_9f8e',
  proxyAuthorization: 'cHJveHk6c2VjcmV0X3Byb3h5XzQ0',
  apiKey: 'key_live_4d3c2b',
  partnerApiKey: 'pkey_live_8e7f6a',
  cookie: 'cookie_value_7a6b',
  cardNumber: '4111111111111111',
  /** Three digits occur by chance (in tokens, times): the store is searched for it as a JSON string, `"737"`. */
  cvv: '737',
  queryToken: 'qtok_1a2b3c',
  loyalty: 'LN-424242',
  urlPassword: 'pw_in_url_55',
  envSecret: 'sk_live_env_0099',
};

/** A stored profile as the store holds it: its row's URL column and its data blob, decoded by the test itself. */
interface RawProfile {
  token: string;
  url: string;
  data: ProfileData;
}

/** The store read with a connection of the test's own, not through the application. */
interface RawStore {
  /** Every stored profile, its blob decoded. */
  profiles(): Promise<RawProfile[]>;
  /** Every row of every table of the store, blobs decoded, as one string. */
  everything(): Promise<string>;
}

const codec = new ProfileCodec();

/** A stored blob decoded as the store reads it: a profile of a batch through the profile that carries its frame. */
function sqliteDecoder(db: Database.Database): (blob: Buffer) => Promise<unknown> {
  const carrier = db.prepare('SELECT data FROM profile_data WHERE id = ?').pluck();
  return (blob) => codec.decode(blob, (key) => (carrier.get(key) as Buffer | undefined) ?? null);
}

/** The SQLite store file: every table, and the profiles (`profile` joined with its URL and `profile_data`). */
function sqliteStore(file: string): RawStore {
  const open = () => new Database(file, { readonly: true, fileMustExist: true });
  return {
    async profiles() {
      const db = open();
      try {
        const rows = db
          .prepare(
            'SELECT p.token, u.url, d.data FROM profile p JOIN profile_url u ON u.id = p.url_id JOIN profile_data d ON d.id = p.id',
          )
          .all() as Array<{ token: string; url: string; data: Buffer }>;
        const decode = sqliteDecoder(db);
        return await Promise.all(
          rows.map(async (r) => ({ token: r.token, url: r.url, data: (await decode(r.data)) as ProfileData })),
        );
      } finally {
        db.close();
      }
    },
    async everything() {
      const db = open();
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
          name: string;
        }>;
        const out: string[] = [];
        const decode = sqliteDecoder(db);
        for (const { name } of tables) {
          for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) {
            for (const value of Object.values(row)) {
              out.push(
                Buffer.isBuffer(value) && name === 'profile_data' ? JSON.stringify(await decode(value)) : String(value),
              );
            }
          }
        }
        return out.join('\n');
      } finally {
        db.close();
      }
    },
  };
}

/** The PostgreSQL store's schema: every table of it, and the profiles (`profiler_profile` joined with `profiler_profile_data`). */
function postgresStore(schema: string): RawStore {
  const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  /** The data table read once: a profile of a batch is decoded through the profile that carries its frame. */
  const decoder = async () => {
    const rows = await query<{ id: string; data: Buffer }>(`SELECT id, data FROM "${schema}".profiler_profile_data`);
    const byId = new Map(rows.map((row) => [String(row.id), row.data]));
    return (blob: Buffer) => codec.decode(blob, (key) => byId.get(String(key)) ?? null);
  };
  return {
    async profiles() {
      const rows = await query<{ token: string; url: string; data: Buffer }>(
        `SELECT p.token, p.url, d.data FROM "${schema}".profiler_profile p JOIN "${schema}".profiler_profile_data d ON d.id = p.id`,
      );
      const decode = await decoder();
      return Promise.all(
        rows.map(async (r) => ({ token: r.token, url: r.url, data: (await decode(r.data)) as ProfileData })),
      );
    },
    async everything() {
      const tables = await query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining(['profiler_profile', 'profiler_profile_data']),
      );
      const out: string[] = [];
      const decode = await decoder();
      for (const { table_name: name } of tables) {
        for (const row of await query<Record<string, unknown>>(`SELECT * FROM "${schema}"."${name}"`)) {
          for (const value of Object.values(row)) {
            out.push(
              Buffer.isBuffer(value) && name === 'profiler_profile_data'
                ? JSON.stringify(await decode(value))
                : String(value),
            );
          }
        }
      }
      return out.join('\n');
    },
  };
}

/** The profile store's DSN for PostgreSQL: the test server's database, in `schema`. */
function postgresDsn(schema: string): string {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** The same checks on each store: what a test reads back from the store's own rows. */
function redactionSuite(store: { dsn: () => string; raw: () => RawStore; cleanUp: () => Promise<void> }): void {
  let app: NestExpressApplication;

  beforeAll(async () => {
    process.env.SHOP_PAYMENT_SECRET = SECRETS.envSecret;
    app = await createTestApp({ env: { PROFILER_DSN: store.dsn(), PROFILER_REDACT_FIELDS: '^loyalty' } });
  });

  afterAll(async () => {
    delete process.env.SHOP_PAYMENT_SECRET;
    await app?.close();
    await store.cleanUp();
  });

  /** Every waiting profile written, then the stored rows of `tokens`, read by the test (each store read once). */
  async function storedRows(tokens: readonly string[]): Promise<RawProfile[]> {
    await settle();
    await app.get(ProfilerService).flush();
    const rows = new Map((await store.raw().profiles()).map((p) => [p.token, p]));
    return tokens.map((token) => {
      const row = rows.get(token);
      if (!row) throw new Error(`No stored row for ${token}`);
      return row;
    });
  }

  const storedRow = async (token: string): Promise<RawProfile> => (await storedRows([token]))[0];

  /** Where `secret` occurs in `text`, with what precedes it (null when it does not). */
  const occurrence = (text: string, secret: string) => {
    const needle = secret === SECRETS.cvv ? JSON.stringify(secret) : secret;
    const at = text.indexOf(needle);
    return at === -1 ? null : text.slice(Math.max(0, at - 200), at + 50);
  };

  it('masks credentials, cookies, secret body and query fields, extra patterns and URL passwords in the stored rows', async () => {
    const res = await request(app.getHttpServer())
      .post(`/api/login?token=${SECRETS.queryToken}&loyalty_number=${SECRETS.loyalty}&page=1`)
      .set('Authorization', `Bearer ${SECRETS.bearer}`)
      .set('Proxy-Authorization', `Basic ${SECRETS.proxyAuthorization}`)
      .set('X-Api-Key', SECRETS.apiKey)
      .set('X-Partner-Api-Key', SECRETS.partnerApiKey)
      .set('Cookie', `SHOPSESSID=${SECRETS.cookie}; theme=dark`)
      .set('Referer', `https://user:${SECRETS.urlPassword}@partner.example/back`)
      .send({
        email: 'nobody@example.com',
        password: SECRETS.password,
        card_number: SECRETS.cardNumber,
        cvv: SECRETS.cvv,
      })
      .expect(400); // fields the login does not take: refused, and profiled with the body as sent
    const token = res.headers['x-debug-token'];
    const profile = await storedProfile(app, token);
    expect(profile.url).toBe(
      `http://${new URL(profile.url).host}/api/login?token=${MASK}&loyalty_number=${MASK}&page=1`,
    );
    await request(app.getHttpServer()).get(`/nowhere?password=${SECRETS.password}`).expect(404);

    // The row itself: the mask where each secret was.
    const row = await storedRow(token);
    expect(row.url).toBe(profile.url);
    const req = row.data.request;
    expect(req.url).toBe(profile.url);
    expect(req.headers).toMatchObject({
      authorization: MASK,
      'proxy-authorization': MASK,
      'x-api-key': MASK,
      'x-partner-api-key': MASK,
      cookie: MASK,
      referer: `https://user:${MASK}@partner.example/back`,
    });
    expect(req.cookies).toEqual([
      { name: 'SHOPSESSID', value: MASK },
      { name: 'theme', value: MASK },
    ]);
    expect(req.body.parsed).toEqual({ email: 'nobody@example.com', password: MASK, card_number: MASK, cvv: MASK });
    expect(req.query).toEqual({ token: MASK, loyalty_number: MASK, page: '1' });

    // Nowhere else either: every row of every table.
    const stored = await store.raw().everything();
    for (const [name, secret] of Object.entries(SECRETS))
      expect({ name, found: occurrence(stored, secret) }).toEqual({ name, found: null });
    expect(stored).toContain('page=1');
    expect(stored).toContain('theme');
    for (const { url } of await store.raw().profiles()) {
      for (const secret of Object.values(SECRETS)) expect(occurrence(url, secret)).toBeNull();
    }

    const panel = await request(app.getHttpServer()).get(`/_profiler/${token}?panel=request`).expect(200);
    const shown = `${panel.text}\n${parse(panel.text).text}`;
    for (const secret of Object.values(SECRETS)) expect(occurrence(shown, secret)).toBeNull();
    expect(parse(panel.text).text).toContain(`"cvv": "${MASK}"`);
    const config = await request(app.getHttpServer()).get(`/_profiler/${token}?panel=config`).expect(200);
    const env = parse(config.text)
      .querySelectorAll('table.env tr')
      .map((tr) => [tr.querySelector('th')?.text, tr.querySelector('td')?.text]);
    expect(env).toContainEqual(['SHOP_PAYMENT_SECRET', MASK]);
    expect(config.text).not.toContain(SECRETS.envSecret);
  });

  it('masks Set-Cookie among the stored response headers: the session id the client got is nowhere in the store', async () => {
    const res = await request(app.getHttpServer()).get('/register').expect(200);
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const session = setCookie.map((c) => /^SHOPSESSID=([^;]+)/.exec(c)?.[1]).find(Boolean);
    expect(session).toMatch(/^.{16,}$/);

    const row = await storedRow(res.headers['x-debug-token']);
    expect(row.data.response.headers['set-cookie']).toBe(MASK);
    const stored = await store.raw().everything();
    expect(occurrence(stored, session!)).toBeNull();
    expect(occurrence(stored, decodeURIComponent(session!))).toBeNull();
  });

  it('masks a query value up to where a query parser ends it, and keeps a JSON body out of its syntax error, in the stored rows', async () => {
    const server = app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const send = async (target: string, body?: string) => {
      const head = [
        `${body === undefined ? 'GET' : 'POST'} ${target} HTTP/1.1`,
        'Host: shop.test',
        'Accept: application/json',
        'Connection: close',
      ];
      if (body !== undefined) head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
      const answer = await rawRequest(port, `${head.join('\r\n')}\r\n\r\n${body ?? ''}`, { readBody: true });
      return { status: answer.status, token: answer.headers['x-debug-token']! };
    };
    const terminators = ["'", ';', '"', '<', '>', '`', '%27', '%26', '%23', '%20', '+', '(', '?', '='];
    const sent = [];
    for (const [i, t] of terminators.entries()) {
      sent.push({
        secret: `AFTER${i}x${SECRETS.queryToken}`,
        ...(await send(`/nowhere?token=abc${t}AFTER${i}x${SECRETS.queryToken}&page=${i}`)),
      });
      sent.push({
        secret: `MATCH${i}x${SECRETS.queryToken}`,
        ...(await send(`/products?password=abc${t}MATCH${i}x${SECRETS.queryToken}&page=${i}`)),
      });
    }
    const bodies = [
      `{"email":"nobody@example.com","password":SEKRIT0-${SECRETS.password}"}`,
      `{"password":SEKRIT1-${SECRETS.password}"${',"x":1'.repeat(20)}}`,
      `{"email":"${'x'.repeat(40)}@example.com","password":SEKRIT2-${SECRETS.password}"}`,
      `"SEKRIT3-${SECRETS.password}"`,
      `SEKRIT4-${SECRETS.password}`,
    ];
    for (const [i, body] of bodies.entries()) sent.push({ secret: `SEKRIT${i}`, ...(await send('/api/login', body)) });

    for (const { secret, token, status } of sent)
      expect({ secret, status, token: typeof token }).toEqual({ secret, status: expect.any(Number), token: 'string' });
    // Read once for all: reading the whole store once a request made the test's time grow with its square.
    const rows = await storedRows(sent.map((s) => s.token));
    for (const [i, { secret }] of sent.entries()) {
      const row = rows[i];
      const text = JSON.stringify(row);
      expect({ secret, found: occurrence(text, secret) }).toEqual({ secret, found: null });
      expect({ secret, found: occurrence(row.url, secret) }).toEqual({ secret, found: null });
    }
    const json = rows[sent.length - bodies.length];
    expect(json.data.exception!.exceptions.map((e: { message: string }) => e.message)).toEqual([
      'Malformed JSON body: Unexpected token in JSON at position 41',
      'Unexpected token in JSON at position 41',
    ]);
    const stored = await store.raw().everything();
    expect(occurrence(stored, SECRETS.queryToken)).toBeNull();
    expect(occurrence(stored, SECRETS.password)).toBeNull();
  });

  it('masks secret query values in the logs of the debug error page', async () => {
    const res = await request(app.getHttpServer()).get(`/missing?access_token=${SECRETS.queryToken}&q=tea`).expect(404);
    const logs = parse(res.text).querySelector('#logs')?.toString() ?? '';
    expect(logs).toContain('access_token=******&amp;q=tea');
    expect(logs).not.toContain(SECRETS.queryToken);
  });
}

describe('Secrets never reach the profile store raw: SQLite store (e2e)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shopkernel-redaction-'));
  const file = join(dir, 'profiles.sqlite');
  redactionSuite({
    dsn: () => `sqlite:${file}`,
    raw: () => sqliteStore(file),
    cleanUp: async () => rmSync(dir, { recursive: true, force: true }),
  });
});

describePostgres('Redaction in the PostgreSQL store (e2e)')(
  'Secrets never reach the profile store raw: PostgreSQL store (e2e)',
  () => {
    const schema = `profiler_redaction_${process.pid}_${randomBytes(3).toString('hex')}`;
    redactionSuite({
      dsn: () => postgresDsn(schema),
      raw: () => postgresStore(schema),
      cleanUp: () => dropSchema(schema),
    });
  },
);
