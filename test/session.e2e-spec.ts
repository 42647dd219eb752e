import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { ShopDb } from '../src/database/shop-db.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';
import { describeOnEachDatabase, type TestDatabase } from './support/shop-databases.js';
import { SessionFixturesModule } from './fixtures/session-fixtures.module.js';

const COOKIE = /^SHOPSESSID=([A-Za-z0-9_-]{43}); Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/;

function sessionCookie(res: request.Response): string | undefined {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return cookies.find((c) => c.startsWith('SHOPSESSID='));
}

function sessionId(res: request.Response): string {
  const cookie = sessionCookie(res);
  const match = cookie ? COOKIE.exec(cookie) : null;
  if (!match) throw new Error(`No session cookie in ${JSON.stringify(res.headers['set-cookie'])}`);
  return match[1];
}

describeOnEachDatabase('Sessions', 'session', sessionContract);

function sessionContract(database: () => Promise<TestDatabase>): void {
  let app: NestExpressApplication;
  let db: ShopDb;
  let target: TestDatabase;
  /** The app's environment: the suite's database (in-memory SQLite, or a PostgreSQL schema of its own) and `env`. */
  const withDatabase = (env: Record<string, string> = {}) => ({
    ...(target.url ? { DATABASE_URL: target.url } : {}),
    ...env,
  });

  beforeAll(async () => {
    target = await database();
    app = await createTestApp({ imports: [SessionFixturesModule], env: withDatabase() });
    db = app.get(ShopDb);
  });

  afterAll(async () => {
    await app?.close();
    await target?.teardown?.();
  });

  const rows = () => db.selectFrom('sessions').selectAll().execute();

  beforeEach(async () => {
    await db.deleteFrom('sessions').execute();
  });

  it('creates nothing for a visitor whose request does not use the session', async () => {
    const res = await request(app.getHttpServer()).get('/_test/session/none').expect(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await rows()).toHaveLength(0);
  });

  it('stores a session on first write with an HttpOnly, SameSite=Lax cookie, and makes the response private', async () => {
    const res = await request(app.getHttpServer()).get('/_test/session/count').expect(200);
    expect(res.body).toEqual({ visits: 1 });
    const id = sessionId(res);
    expect(res.headers['cache-control']).toBe('max-age=0, must-revalidate, private');
    const stored = await rows();
    expect(stored).toHaveLength(1);
    expect(stored[0].id).toBe(id);
    expect(JSON.parse(stored[0].data)).toEqual({ visits: 1 });
    expect(Date.parse(stored[0].expires_at) - Date.now()).toBeGreaterThan(604_800_000 - 60_000);
  });

  it('gives each request the state the previous one saved (the response waits for the save)', async () => {
    const first = await request(app.getHttpServer()).get('/_test/session/count').expect(200);
    const cookie = `SHOPSESSID=${sessionId(first)}`;
    for (let visit = 2; visit <= 6; visit++) {
      const res = await request(app.getHttpServer()).get('/_test/session/count').set('Cookie', cookie).expect(200);
      expect(res.body).toEqual({ visits: visit });
    }
    const peek = await request(app.getHttpServer()).get('/_test/session/peek').set('Cookie', cookie).expect(200);
    expect(peek.body).toEqual({ visits: 6 });
    // Only read: not written again, no new cookie, but still private.
    expect(sessionCookie(peek)).toBeUndefined();
    expect(peek.headers['cache-control']).toBe('max-age=0, must-revalidate, private');
    expect(await rows()).toHaveLength(1);
  });

  it('ignores a malformed cookie, and expires a well-formed one the store does not know', async () => {
    const malformed = await request(app.getHttpServer())
      .get('/_test/session/peek')
      .set('Cookie', 'SHOPSESSID=../../etc/passwd')
      .expect(200);
    expect(malformed.body).toEqual({ visits: null });
    const unknown = await request(app.getHttpServer())
      .get('/_test/session/peek')
      .set('Cookie', `SHOPSESSID=${'x'.repeat(43)}`)
      .expect(200);
    expect(unknown.body).toEqual({ visits: null });
    expect(sessionCookie(unknown)).toBe('SHOPSESSID=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    const broken = await request(app.getHttpServer())
      .get('/_test/session/none')
      .set('Cookie', 'SHOPSESSID="unterminated; a=%zz')
      .expect(200);
    expect(broken.body).toEqual({ ok: true });
    expect(await rows()).toHaveLength(0);
  });

  it('does not read an expired session', async () => {
    const first = await request(app.getHttpServer()).get('/_test/session/count').expect(200);
    const id = sessionId(first);
    await db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    const res = await request(app.getHttpServer())
      .get('/_test/session/count')
      .set('Cookie', `SHOPSESSID=${id}`)
      .expect(200);
    expect(res.body).toEqual({ visits: 1 });
    expect(sessionId(res)).not.toBe(id);
  });

  it("renews an unchanged session's expiry at most once a minute", async () => {
    const first = await request(app.getHttpServer()).get('/_test/session/count').expect(200);
    const id = sessionId(first);
    const old = new Date(Date.now() + 3_600_000).toISOString();
    await db.updateTable('sessions').set({ expires_at: old }).where('id', '=', id).execute();
    const res = await request(app.getHttpServer())
      .get('/_test/session/peek')
      .set('Cookie', `SHOPSESSID=${id}`)
      .expect(200);
    expect(sessionId(res)).toBe(id);
    const [row] = await rows();
    expect(Date.parse(row.expires_at)).toBeGreaterThan(Date.parse(old) + 86_400_000);
    const again = await request(app.getHttpServer())
      .get('/_test/session/peek')
      .set('Cookie', `SHOPSESSID=${id}`)
      .expect(200);
    expect(sessionCookie(again)).toBeUndefined();
  });

  it('moves the session to a new id on migrate (the old id stops working)', async () => {
    const first = await request(app.getHttpServer()).get('/_test/session/count').expect(200);
    const oldId = sessionId(first);
    const res = await request(app.getHttpServer())
      .post('/_test/session/migrate')
      .set('Cookie', `SHOPSESSID=${oldId}`)
      .expect(200);
    const newId = sessionId(res);
    expect(newId).not.toBe(oldId);
    expect((await rows()).map((r) => r.id)).toEqual([newId]);
    const withOld = await request(app.getHttpServer())
      .get('/_test/session/peek')
      .set('Cookie', `SHOPSESSID=${oldId}`)
      .expect(200);
    expect(withOld.body).toEqual({ visits: null });
    const withNew = await request(app.getHttpServer())
      .get('/_test/session/peek')
      .set('Cookie', `SHOPSESSID=${newId}`)
      .expect(200);
    expect(withNew.body).toEqual({ visits: 1 });
  });

  it('removes the stored session and clears the cookie on invalidate', async () => {
    const first = await request(app.getHttpServer()).get('/_test/session/count').expect(200);
    const id = sessionId(first);
    const res = await request(app.getHttpServer())
      .post('/_test/session/invalidate')
      .set('Cookie', `SHOPSESSID=${id}`)
      .expect(200);
    expect(sessionCookie(res)).toBe('SHOPSESSID=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    expect(await rows()).toHaveLength(0);
  });

  it('marks the cookie Secure over HTTPS (behind a trusted proxy)', async () => {
    await app.close();
    app = await createTestApp({ imports: [SessionFixturesModule], env: withDatabase({ TRUSTED_PROXIES: 'loopback' }) });
    db = app.get(ShopDb);
    const res = await request(app.getHttpServer())
      .get('/_test/session/count')
      .set('X-Forwarded-Proto', 'https')
      .expect(200);
    expect(sessionCookie(res)).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
  });

  describe('CSRF tokens', () => {
    it("refuses an unsafe request to a protected handler without the session's token: 403", async () => {
      const first = await request(app.getHttpServer()).get('/_test/session/token').expect(200);
      const cookie = `SHOPSESSID=${sessionId(first)}`;
      const token: string = first.body.token;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const none = await request(app.getHttpServer())
        .post('/_test/session/protected')
        .set('Cookie', cookie)
        .set('Accept', 'application/json')
        .send({ a: 1 })
        .expect(403);
      expect(none.body.detail).toBe('Invalid CSRF token.');
      await request(app.getHttpServer())
        .post('/_test/session/protected')
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf_token: tampered(token), a: '1' })
        .expect(403);
      // Another visitor's token is worth nothing in this session.
      await request(app.getHttpServer())
        .post('/_test/session/protected')
        .type('form')
        .send({ _csrf_token: token, a: '1' })
        .expect(403);

      const form = await request(app.getHttpServer())
        .post('/_test/session/protected')
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf_token: token, a: '1' })
        .expect(200);
      expect(form.body).toEqual({ body: { a: '1' } });
      const json = await request(app.getHttpServer())
        .post('/_test/session/protected')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', token)
        .send({ a: 2 })
        .expect(200);
      expect(json.body).toEqual({ body: { a: 2 } });
    });
  });

  describe('in the profiler', () => {
    it('shows the Session panel with secrets masked, and masks the session id in the Database panel', async () => {
      const first = await request(app.getHttpServer()).get('/_test/session/token').expect(200);
      const id = sessionId(first);
      const res = await request(app.getHttpServer())
        .post('/_test/session/secret')
        .set('Cookie', `SHOPSESSID=${id}`)
        .expect(200);
      const token = res.headers['x-debug-token'];
      const profile = await storedProfile(app, token);
      const session = profile.data.session as {
        attributes: Record<string, unknown>;
        outcome: string;
        idPrefix: string;
      };
      expect(session.outcome).toBe('saved');
      expect(session.idPrefix).toBe(id.slice(0, 6));
      expect(session.attributes).toEqual({
        '_csrf_token/fixture': '******',
        api_token: '******',
        cart_note: 'gift wrap',
      });
      const stored = JSON.stringify(profile);
      expect(stored).not.toContain(id);
      expect(stored).not.toContain('tok_live_abcdef');
      expect(stored).not.toContain(first.body.token);

      const page = await request(app.getHttpServer()).get(`/_profiler/${token}?panel=session`).expect(200);
      expect(page.text).toContain('<th class="key">At the response</th><td class="mono">saved</td>');
      expect(page.text).toContain('<th class="key">cart_note</th><td class="mono">gift wrap</td>');
      expect(page.text).not.toContain('tok_live_abcdef');

      const events = (profile.data.events as { called: Array<{ event: string; listener: string; priority: number }> })
        .called;
      expect(events).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            event: 'kernel.request',
            listener: 'SessionListener::onKernelRequest',
            priority: 128,
          }),
          expect.objectContaining({
            event: 'kernel.response',
            listener: 'SessionListener::onKernelResponse',
            priority: -1000,
          }),
          expect.objectContaining({
            event: 'kernel.finish_request',
            listener: 'SessionListener::onFinishRequest',
            priority: 0,
          }),
        ]),
      );
    });
  });
}

/** The token with its last character changed (to another one: a fixed replacement equals it one time in 64). */
function tampered(token: string): string {
  return `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
}
