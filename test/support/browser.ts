import type { NestExpressApplication } from '@nestjs/platform-express';
import { constants, readFileSync } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, type TestAppOptions } from './create-test-app.js';

/** Debian's Chromium (`apt-get install -y chromium`); CHROMIUM_PATH names another binary. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Where screenshots go: test-output/ at the project root (git-ignored). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

/**
 * Launches headless Chromium through playwright-core (which brings no browser of its own). A missing Chromium
 * fails the test, with the way to install it: browser tests are part of `npm test` and of CI, never skipped.
 */
export async function launchChromium(): Promise<Browser> {
  try {
    await access(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: the browser tests need Debian's chromium. ` +
        'Install it with `apt-get install -y chromium` (as root; .ci/run does it), or set CHROMIUM_PATH to a Chromium binary.',
    );
  }
  // playwright-core makes a fresh temporary profile (user-data-dir) for every launch.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface TestServer {
  app: NestExpressApplication;
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  baseUrl: string;
}

/** The test application (createTestApp) listening on a free port of 127.0.0.1, for a real browser. */
export async function startTestServer(options: TestAppOptions = {}): Promise<TestServer> {
  const app = await createTestApp(options);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}

/**
 * A full-page screenshot into test-output/screenshots/<name>.png (or of the window only: what a fixed toolbar
 * covers is seen there); returns the file's path.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical violations axe-core finds on the page, as `rule: target`. The page's policy must let the
 * script in: profiler pages allow none, so their contexts are made with `bypassCSP`.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  type AxeResult = { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  // Evaluated as text: the tests are compiled without the DOM's types.
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as AxeResult;
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/** The screens every page is judged on. */
export const SCREENS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
export const SCHEMES = ['light', 'dark'] as const;

/**
 * A page in a context of its own, at `screen`'s size and in `scheme`, closed after `use`. The context bypasses the
 * page's content security policy, so that axe-core can run on profiler pages.
 */
export async function withPage<T>(
  browser: Browser,
  screen: { width: number; height: number },
  scheme: (typeof SCHEMES)[number],
  use: (page: Page) => Promise<T>,
): Promise<T> {
  const context = await browser.newContext({
    viewport: { width: screen.width, height: screen.height },
    colorScheme: scheme,
    bypassCSP: true,
  });
  try {
    return await use(await context.newPage());
  } finally {
    await context.close();
  }
}

/** No page wider than the screen, and nothing axe-core calls serious or critical. */
export async function expectFitsAndAccessible(page: Page): Promise<void> {
  const { scroll, window } = (await page.evaluate(
    '({ scroll: document.documentElement.scrollWidth, window: window.innerWidth })',
  )) as { scroll: number; window: number };
  expect(scroll).toBeLessThanOrEqual(window);
  expect(await axeViolations(page)).toEqual([]);
}
