import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { PasswordHasher } from '../../src/security/password-hasher.js';
import { UserRepository } from '../../src/users/user.repository.js';
import { axeViolations, launchChromium, screenshot, startTestServer, type TestServer } from '../support/browser.js';
import { settle, storedProfiles } from '../support/profiler.js';

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const SCHEMES = ['light', 'dark'] as const;

/** The pages the security round added or changed: refused logins and registrations, the Security and Routing panels that explain them. */
describe('Pages of the security round in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer();
    await server.app
      .get(UserRepository)
      .create('customer@example.com', await server.app.get(PasswordHasher).hash('correct horse battery'), [
        'ROLE_USER',
      ]);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  for (const viewport of VIEWPORTS) {
    for (const scheme of SCHEMES) {
      const name = `${viewport.width}-${scheme}`;

      it(`shows a throttled login, a throttled registration and their Security panel, no wider than ${viewport.width} px, axe-clean (${scheme})`, async () => {
        // bypassCSP lets the test inject axe-core into the profiler's pages, whose policy allows no script.
        const context = await browser.newContext({ viewport, colorScheme: scheme, bypassCSP: true });
        const page = await context.newPage();
        const email = `guess-${name}@example.com`;
        let status = 0;
        let token = '';
        for (let attempt = 0; attempt < 6; attempt++) {
          await page.goto(`${server.baseUrl}/login`);
          await page.fill('input[name=email]', email);
          await page.fill('input[name=password]', 'not the password');
          const [response] = await Promise.all([
            page.waitForResponse((r) => r.url().endsWith('/login') && r.request().method() === 'POST'),
            page.click('form[action="/login"] button[type=submit]'),
          ]);
          status = response.status();
          token = (await response.headerValue('x-debug-token')) ?? '';
        }
        expect(status).toBe(429);
        await expect(page.locator('p.flash.error[role=alert]').textContent()).resolves.toBe(
          'Too many failed login attempts, please try again in 1 minute.',
        );
        const pages: [string, Page][] = [[`security-login-429-${name}`, page]];

        const register = await context.newPage();
        await register.goto(`${server.baseUrl}/register`);
        await register.fill('input[name=email]', email);
        await register.fill('input[name=password]', 'correct horse battery');
        await register.fill('input[name=password_confirmation]', 'correct horse battery');
        const [registered] = await Promise.all([
          register.waitForResponse((r) => r.url().endsWith('/register') && r.request().method() === 'POST'),
          register.click('form[action="/register"] button[type=submit]'),
        ]);
        expect(registered.status()).toBe(429);
        await expect(register.locator('p.flash.error[role=alert]').textContent()).resolves.toMatch(/^Too many/);
        pages.push([`security-register-429-${name}`, register]);

        const panel = await context.newPage();
        await panel.goto(`${server.baseUrl}/_profiler/${token}?panel=security`);
        await expect(panel.locator('main').textContent()).resolves.toMatch(
          /Not logged in\..*Login throttling: login refused \(429\)/s,
        );
        pages.push([`security-panel-429-${name}`, panel]);

        for (const [shot, shown] of pages) {
          await screenshot(shown, shot);
          const width = (await shown.evaluate('document.documentElement.scrollWidth')) as number;
          expect([shot, width <= viewport.width]).toEqual([shot, true]);
          expect([shot, await axeViolations(shown)]).toEqual([shot, []]);
        }
        await context.close();
      });

      it(`replays a hidden profiler request in the Routing panel, no wider than ${viewport.width} px, axe-clean (${scheme})`, async () => {
        await request(server.app.getHttpServer())
          .post('/_profiler/search')
          .set('Host', `rebind-${name}.attacker.example`)
          .expect(404);
        await settle();
        const { rows } = await storedProfiles(server.app, { url: `rebind-${name}.attacker.example` });
        expect(rows).toHaveLength(1);
        const context = await browser.newContext({ viewport, colorScheme: scheme, bypassCSP: true });
        const page = await context.newPage();
        await page.goto(`${server.baseUrl}/_profiler/${rows[0].token}?panel=routing`);
        await expect(page.locator('table.route-log').textContent()).resolves.toContain(
          'Debug route, hidden from this client',
        );
        await screenshot(page, `security-routing-hidden-${name}`);
        expect((await page.evaluate('document.documentElement.scrollWidth')) as number).toBeLessThanOrEqual(
          viewport.width,
        );
        expect(await axeViolations(page)).toEqual([]);
        await context.close();
      });
    }
  }
});
