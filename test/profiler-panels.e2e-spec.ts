import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, type HTMLElement } from 'node-html-parser';
import request from 'supertest';
import { KernelFixturesModule } from './fixtures/kernel-fixtures.module.js';
import { ProfilerFixturesModule } from './fixtures/profiler-fixtures.module.js';
import { createTestApp } from './support/create-test-app.js';
import { storedProfile } from './support/profiler.js';

const HOST = 'shop.test';
const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

describe('The Logs and Performance panels (e2e)', () => {
  let app: NestExpressApplication;
  const get = (path: string) => request(app.getHttpServer()).get(path).set('Host', HOST);

  beforeAll(async () => {
    app = await createTestApp({ imports: [KernelFixturesModule, ProfilerFixturesModule] });
  });

  afterAll(async () => {
    await app.close();
  });

  async function profiled(path: string): Promise<{ token: string; entries: { level: number; message: string }[] }> {
    const token = (await get(path).expect(200)).headers['x-debug-token'];
    const profile = await storedProfile(app, token);
    return { token, entries: (profile.data.logs as { entries: { level: number; message: string }[] }).entries };
  }

  describe('Logs', () => {
    it('opens on the errors and warnings, each linking to its row, above every entry in order', async () => {
      const { token, entries } = await profiled('/pfx/logs');
      const page = parse((await get(`/_profiler/${token}?panel=logs`).expect(200)).text);
      const panel = page.querySelector('.panel')!;
      const problems = panel.querySelector('section.log-problems')!;
      // The summary comes before the first table of entries.
      expect(panel.innerHTML.indexOf('log-problems')).toBeLessThan(panel.innerHTML.indexOf('table class="data logs"'));
      expect(text(problems.querySelector('h2'))).toBe('Errors and warnings (2)');
      const items = problems.querySelectorAll('li');
      expect(items.map((li) => [text(li.querySelector('.level')), text(li.querySelector('a'))])).toEqual([
        ['WARNING', 'Stock low for TEA-1'],
        ['ERROR', 'Payment p-9 failed'],
      ]);
      expect(text(items[0].querySelector('.muted'))).toMatch(/^shop · \d{2}:\d{2}:\d{2}\.\d{3}$/);
      for (const li of items) {
        const target = li.querySelector('a')!.getAttribute('href')!.slice(1);
        const row = page.getElementById(target);
        expect(row?.tagName).toBe('TR');
        expect(row!.closest('details')).toBeNull();
      }
      // Every entry of the request is in the HTML, in its order.
      const rows = panel.querySelectorAll('table.logs tbody tr');
      expect(rows.map((tr) => tr.getAttribute('id'))).toEqual(entries.map((_, i) => `log-${i}`));
      expect(text(panel.querySelector('h2.log-all'))).toBe(`All entries (${entries.length})`);
      const debug = entries.filter((entry) => entry.level === 100).length;
      expect(text(panel.querySelector('p.counts'))).toBe(
        `Errors 1 · Warnings 1 · Deprecations 0 · Debug ${debug} · ${entries.length} in all`,
      );
    });

    it('folds the debug entries per kernel event with their count, and every context behind a toggle', async () => {
      const { token } = await profiled('/pfx/logs');
      const page = parse((await get(`/_profiler/${token}?panel=logs`).expect(200)).text);
      const groups = page.querySelectorAll('details.log-group');
      expect(groups.length).toBeGreaterThanOrEqual(3);
      for (const group of groups) {
        expect(group.hasAttribute('open')).toBe(false);
        const [, event, count] = /^(kernel\.[a-z_]+|Before the kernel events): (\d+) /.exec(
          text(group.querySelector('summary')),
        )!;
        expect(Number(count)).toBeGreaterThan(0);
        const levels = group.querySelectorAll('tbody tr .level').map(text);
        expect(new Set(levels)).toEqual(new Set(['DEBUG']));
        if (event.startsWith('kernel.'))
          expect(group.querySelector('tbody tr .log-message')!.text).toContain(`Notified event "${event}"`);
      }
      expect(text(groups[0].querySelector('summary'))).toMatch(/^kernel\.request: \d+ event notifications?$/);
      // Entries that are not debug are never folded.
      for (const row of page.querySelectorAll('table.logs tbody tr')) {
        if (text(row.querySelector('.level')) !== 'DEBUG') expect(row.closest('details')).toBeNull();
      }
      // A context is a closed toggle, its JSON inside; the placeholder's value is marked in the message.
      const stock = page
        .querySelectorAll('table.logs tbody tr')
        .find((tr) => text(tr.querySelector('.log-message')) === 'Stock low for TEA-1')!;
      const context = stock.querySelector('td.message > details.log-context')!;
      expect(text(context.querySelector('summary'))).toBe('Context');
      expect(JSON.parse(context.querySelector('pre.json')!.text)).toEqual({ sku: 'TEA-1', remaining: 2 });
      expect(stock.querySelector('mark.placeholder')!.getAttribute('title')).toBe('{sku}');
      expect(text(stock.querySelector('mark.placeholder'))).toBe('TEA-1');
      expect(page.querySelectorAll('table.logs pre').every((pre) => pre.closest('details.log-context') !== null)).toBe(
        true,
      );
    });

    it('keeps the level and channel filters, the summary following them', async () => {
      const { token } = await profiled('/pfx/logs');
      const errors = parse((await get(`/_profiler/${token}?panel=logs&level=error`).expect(200)).text);
      expect(errors.querySelectorAll('section.log-problems li .level').map(text)).toEqual(['ERROR']);
      expect(errors.querySelectorAll('table.logs tbody tr .level').map(text)).toEqual(['ERROR']);
      expect(errors.querySelectorAll('details.log-group')).toHaveLength(0);
      const events = parse((await get(`/_profiler/${token}?panel=logs&channel=event`).expect(200)).text);
      expect(events.querySelector('section.log-problems')).toBeNull();
      expect(
        events.querySelectorAll('table.logs tbody tr').every((tr) => tr.closest('details.log-group') !== null),
      ).toBe(true);
    });
  });

  describe('Performance', () => {
    it('explains the colours, hides the spans under 0.1 ms saying how many, and links to all of them', async () => {
      const { token } = await profiled('/pfx/logs');
      const page = parse((await get(`/_profiler/${token}?panel=performance`).expect(200)).text);
      // The legend explains the colours drawn: at the default threshold, a kernel event may be under 0.1 ms (on Node 24,
      // often every one of them), so its colour is explained where every span is drawn, below.
      const legend = page.querySelectorAll('ul.tl-legend li').map(text);
      expect(legend).toContain('Total (until kernel.terminate)');
      expect(page.querySelectorAll('ul.tl-legend li .tl-swatch')).toHaveLength(legend.length);
      const threshold = page.querySelector('p.tl-threshold')!;
      const [, hidden, all] = /^(\d+) of (\d+) spans under 0\.1 ms are hidden\. Show all spans$/
        .exec(text(threshold))!
        .map(Number);
      expect(hidden).toBeGreaterThan(0);
      expect(threshold.querySelector('a')!.getAttribute('href')).toBe('?panel=performance&threshold=0');
      const drawn = page.querySelectorAll('svg.timeline > g:not(.tl-total)');
      expect(drawn).toHaveLength(all - hidden);

      const everything = parse((await get(`/_profiler/${token}?panel=performance&threshold=0`).expect(200)).text);
      expect(everything.querySelectorAll('svg.timeline > g:not(.tl-total)')).toHaveLength(all);
      expect(text(everything.querySelector('p.tl-threshold'))).toBe(
        `All ${all} spans are shown. Hide spans under 0.1 ms`,
      );
      const legendOfAll = everything.querySelectorAll('ul.tl-legend li').map(text);
      expect(legendOfAll).toEqual(expect.arrayContaining(['Kernel event (all its listeners)', ...legend]));
      expect(everything.querySelectorAll('ul.tl-legend li .tl-swatch')).toHaveLength(legendOfAll.length);
    });

    it('names the time between the kernel steps, draws a labelled total line, and is as wide as its box', async () => {
      const { token } = await profiled('/pfx/logs');
      const page = parse((await get(`/_profiler/${token}?panel=performance&threshold=0`).expect(200)).text);
      const svg = page.querySelector('svg.timeline')!;
      expect(svg.getAttribute('width')).toBe('100%');
      expect(text(svg.querySelector('g.tl-total text'))).toMatch(/^Total \d+\.\d\d ms$/);
      const gaps = page.querySelectorAll('table.gaps tbody tr').map((tr) => text(tr.querySelector('td')));
      expect(gaps.at(-1)).toBe('after the response was sent, until kernel.terminate');
      expect(gaps).toContain('reading the body, resolving the controller');
      expect(svg.querySelectorAll('g.tl-gap').map((g) => text(g.querySelector('text')))).toEqual(gaps);
    });
  });
});
