import type { NestExpressApplication } from '@nestjs/platform-express';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';

/** Development (no view cache): an edited profiler template shows at the next page, as an edited shop view does. */
describe('profiler templates reload in development (e2e)', () => {
  let app: NestExpressApplication;
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'shopkernel-views-'));
    cpSync(join(process.cwd(), 'views'), join(project, 'views'), { recursive: true });
    app = await createTestApp({ env: { VIEW_CACHE: '0' }, config: { projectDir: project } });
  });
  afterAll(async () => {
    await app.close();
    rmSync(project, { recursive: true, force: true });
  });

  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  it('shows an edited panel template and an edited stylesheet without a restart', async () => {
    const token = (await get('/').expect(200)).headers['x-debug-token'];
    await storedProfile(app, token);
    const panel = () => get(`/_profiler/${token}?panel=request`).expect(200);
    expect((await panel()).text).not.toContain('id="edited-panel"');

    const template = join(project, 'views', 'profiler', 'panels', 'request.hbs');
    writeFileSync(template, `<p id="edited-panel">Edited while running</p>\n${readFileSync(template, 'utf8')}`);
    const css = join(project, 'views', 'profiler', 'profiler.css');
    writeFileSync(css, `${readFileSync(css, 'utf8')}\n.edited-rule { color: red; }\n`);

    let html = '';
    for (let i = 0; i < 100 && !html.includes('id="edited-panel"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      html = (await panel()).text;
    }
    expect(html).toContain('<p id="edited-panel">Edited while running</p>');
    expect(html).toContain('.edited-rule { color: red; }');
  });
});
