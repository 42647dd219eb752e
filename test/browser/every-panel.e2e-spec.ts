import type { Browser, Page } from 'playwright-core';
import { customerJourney } from '../support/customer-journey.js';
import {
  axeViolations,
  launchChromium,
  screenshot,
  startTestServer,
  type TestServer,
  withPage,
  SCHEMES,
} from '../support/browser.js';
import { settle, storedProfiles } from '../support/profiler.js';

// Issue 31, point 6: every profiler page on every screen. Each panel of three profiles (a product page, a checkout
// POST, a 404), the search page and the 404's error page, at 1440 and 390 px, light and dark: no wider than the
// window, no serious or critical axe violation (its color-contrast rule is the 4.5:1 check), no menu badge outside
// the menu. Then, by keyboard, every control of two busy panels is reached with Tab.

const SCREENS = [
  { name: '1440', width: 1440, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;
/** Panels the application registers today; the sweep opens whatever the menu lists, and at least these. */
const KNOWN_PANELS = [
  'request',
  'response',
  'performance',
  'exception',
  'logs',
  'events',
  'routing',
  'database',
  'templates',
  'cart',
  'security',
  'session',
  'config',
  'memory',
];
const TIMEOUT = 180_000;

type Profile = 'product' | 'checkout' | 'notFound';
/** `fits`: true, or the document's width against the window's. */
interface PageReport {
  page: string;
  fits: true | string;
  violations: string[];
  badgeOverflow: string[];
}

/**
 * Runs in the page: the document's width against the window's, and each menu badge whose box leaves its menu entry
 * or the menu (whose row of tabs may scroll sideways at 390 px: its scrolled width counts as inside).
 */
const MEASURE = `(() => {
  const menu = document.querySelector('nav.menu');
  const overflow = [];
  if (menu) {
    const m = menu.getBoundingClientRect();
    const left = m.left - menu.scrollLeft;
    const right = left + Math.max(menu.scrollWidth, m.width);
    for (const badge of menu.querySelectorAll('.badge')) {
      const b = badge.getBoundingClientRect();
      const a = badge.closest('a').getBoundingClientRect();
      const inside = (box, left, top, r, bottom) => box.left >= left - 0.5 && box.top >= top - 0.5 && box.right <= r + 0.5 && box.bottom <= bottom + 0.5;
      if (!inside(b, left, m.top, right, m.bottom) || !inside(b, a.left, a.top, a.right, a.bottom)) {
        overflow.push(badge.closest('a').dataset.panel + ': ' + Math.round(b.left) + '..' + Math.round(b.right) + ' outside ' + Math.round(a.left) + '..' + Math.round(a.right));
      }
    }
  }
  return { scroll: document.documentElement.scrollWidth, window: window.innerWidth, overflow };
})()`;

describe('Every profiler page on every screen, light and dark, in Chromium (e2e)', () => {
  let server: TestServer;
  let browser: Browser;
  const tokens: Record<Profile, string> = { product: '', checkout: '', notFound: '' };
  const panels: Record<Profile, string[]> = { product: [], checkout: [], notFound: [] };

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    // A product page, a checkout POST and a 404, made as a customer would.
    const { productPath } = await customerJourney(server, browser, 'sweep@example.com');
    await settle();
    tokens.product = (
      await storedProfiles(server.app, { method: 'GET', url: productPath, statusCode: '200' })
    ).rows[0].token;
    tokens.checkout = (await storedProfiles(server.app, { method: 'POST', url: '/checkout' })).rows[0].token;
    tokens.notFound = (await storedProfiles(server.app, { statusCode: '404', url: '/no/such/page' })).rows[0].token;
    // The panels each profile's menu offers.
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    for (const profile of Object.keys(tokens) as Profile[]) {
      await page.goto(`${server.baseUrl}/_profiler/${tokens[profile]}`);
      panels[profile] = await page
        .locator('nav.menu a[data-panel]')
        .evaluateAll((links) => links.map((a) => (a as unknown as { dataset: { panel: string } }).dataset.panel));
    }
    await context.close();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.app.close();
  });

  it('finds the three profiles, and every known panel in their menus', () => {
    expect(Object.values(tokens).every((token) => /^[0-9a-f]{6}$/.test(token))).toBe(true);
    for (const profile of Object.keys(panels) as Profile[]) {
      expect({ profile, missing: KNOWN_PANELS.filter((p) => !panels[profile].includes(p)) }).toEqual({
        profile,
        missing: [],
      });
    }
  });

  async function sweep(page: Page, name: string, url: string, shot: string): Promise<PageReport> {
    await page.goto(`${server.baseUrl}${url}`);
    const { scroll, window, overflow } = (await page.evaluate(MEASURE)) as {
      scroll: number;
      window: number;
      overflow: string[];
    };
    await screenshot(page, shot);
    return {
      page: name,
      fits: scroll <= window || `${scroll} px > ${window} px`,
      violations: await axeViolations(page),
      badgeOverflow: overflow,
    };
  }

  for (const screen of SCREENS) {
    for (const scheme of SCHEMES) {
      it(
        `fits every panel, the search page and the error page in ${screen.width} px, ${scheme}, axe-clean, badges inside the menu`,
        async () => {
          await withPage(browser, screen, scheme, async (page) => {
            const reports: PageReport[] = [];
            for (const profile of Object.keys(tokens) as Profile[]) {
              for (const panel of panels[profile]) {
                reports.push(
                  await sweep(
                    page,
                    `${profile}/${panel}`,
                    `/_profiler/${tokens[profile]}?panel=${panel}`,
                    `sweep-${profile}-${panel}-${screen.name}-${scheme}`,
                  ),
                );
              }
            }
            reports.push(
              await sweep(page, 'search', '/_profiler/search?limit=10', `sweep-search-${screen.name}-${scheme}`),
            );
            reports.push(await sweep(page, 'error-404', '/no/such/page', `sweep-error-404-${screen.name}-${scheme}`));
            expect(reports).toEqual(
              reports.map(({ page: name }) => ({ page: name, fits: true, violations: [], badgeOverflow: [] })),
            );
          });
        },
        TIMEOUT,
      );
    }
  }

  // Every control of the page, marked in document order: the visible ones (a closed <details> keeps its content's boxes,
  // which checkVisibility() sees through).
  const MARK_CONTROLS = `(() => {
    const controls = [...document.querySelectorAll('a[href], button, summary, input, select, textarea, [tabindex="0"]')]
      .filter((el) => !el.disabled && el.checkVisibility({ visibilityProperty: true }));
    controls.forEach((el, i) => el.setAttribute('data-kb', String(i)));
    return controls.map((el) => el.tagName.toLowerCase() + (el.dataset.panel ? '[' + el.dataset.panel + ']' : '') + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' ' + (el.textContent || '').trim().slice(0, 30));
  })()`;

  for (const [profile, panel] of [
    ['checkout', 'database'],
    ['notFound', 'exception'],
  ] as const) {
    it(
      `reaches every control of the ${profile} profile's ${panel} panel with Tab (1440 px, light)`,
      async () => {
        const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
        const page = await context.newPage();
        try {
          await page.goto(`${server.baseUrl}/_profiler/${tokens[profile]}?panel=${panel}`);
          const controls = (await page.evaluate(MARK_CONTROLS)) as string[];
          // The menu's links, the panel's summaries and its buttons are among them.
          expect(controls.filter((c) => /^a\[\w+\]/.test(c)).length).toBe(panels[profile].length);
          expect(controls.filter((c) => c.startsWith('summary')).length).toBeGreaterThan(0);
          if (panel === 'database') expect(controls.filter((c) => c.startsWith('button')).length).toBeGreaterThan(0);
          const reached = new Set<number>();
          for (let i = 0; i < controls.length + 20 && reached.size < controls.length; i++) {
            await page.keyboard.press('Tab');
            const index = (await page.evaluate(
              "document.activeElement && document.activeElement.getAttribute('data-kb')",
            )) as string | null;
            if (index !== null) reached.add(Number(index));
          }
          expect(controls.filter((_, i) => !reached.has(i))).toEqual([]);
        } finally {
          await context.close();
        }
      },
      TIMEOUT,
    );
  }
});
