import { parse } from 'node-html-parser';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { PROJECT_DIR } from '../src/config/app-config.js';
import { buildApp, startApp, type AppProcess } from './support/app-process.js';

/**
 * The application compiled to JavaScript and run as a process of its own, as users run `dist/`: a throw location in
 * compiled code is shown in the TypeScript the user wrote, through the source maps (in-process tests run ts-jest's
 * output, whose stacks name the .ts files already).
 */
describe('The compiled application (its own process)', () => {
  let app: AppProcess;
  let base: string;
  /** Where the router throws its not-found exception, in the TypeScript source. */
  const throwLine =
    readFileSync(join(PROJECT_DIR, 'src/lifecycle/listeners/router.listener.ts'), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('throw new NotFoundHttpException(')) + 1;

  beforeAll(async () => {
    app = await startApp(buildApp(), { PROFILER_DSN: 'sqlite::memory:', LOG_LEVEL: 'error' });
    base = `http://127.0.0.1:${app.port}`;
  }, 120_000);

  afterAll(async () => {
    app.child.kill('SIGTERM');
    await app.exited;
  });

  it('names the TypeScript source of a 404 in its log entry, its header and its first frame', async () => {
    expect(throwLine).toBeGreaterThan(0);
    const res = await request(base).get('/no/such/page').set('Accept', 'text/html').expect(404);
    const where = `src/lifecycle/listeners/router.listener.ts`;
    expect(res.headers['x-debug-exception-file']).toBe(`${encodeURIComponent(where)}:${throwLine}`);
    const page = parse(res.text);
    const logged = page.querySelector('#logs tr.level-row-error td:nth-child(3)')!;
    expect(logged.text).toContain(`at ${where} line ${throwLine}`);
    expect(logged.querySelector('a.file-link')!.getAttribute('href')).toBe(
      `/_profiler/open?file=${where}#L${throwLine}`,
    );
    expect(page.querySelector('.excerpt-file')!.text).toBe(`${where}:${throwLine}`);
    expect(res.text).not.toContain('.test-build/');
    // Printed too (LOG_LEVEL=error): the line a developer reads in the terminal.
    expect(app.output()).toContain(
      `request.ERROR: Uncaught Exception NotFoundHttpException: "No route found for "GET ${base}/no/such/page"" at ${where} line ${throwLine}`,
    );
  });
});
