import { AppConfig } from '../../config/app-config.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { Profile, PROFILE } from '../profile.js';
import { PerformanceCollector } from './performance.collector.js';
import { timelineSvg } from './timeline-svg.js';

describe('timelineSvg', () => {
  const rows = [
    { name: 'kernel.request', category: 'event', start: 0, duration: 2, nested: false },
    { name: 'RouterListener::onKernelRequest', category: 'listener', start: 0.5, duration: 1, nested: true },
    { name: '<script>alert(1)</script>', category: 'controller', start: 2, duration: 5, nested: false },
  ];

  it('draws one row per section in percent of the width, labels in pixels, escaped, with a labelled total line', () => {
    const svg = timelineSvg(rows, 10);
    expect(svg.startsWith('<svg class="timeline"')).toBe(true);
    expect(svg).toContain('width="100%"');
    expect(svg).not.toMatch(/width="\d+"/);
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg).toContain('class="tl-event"');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).not.toContain('<script>');
    // The axis runs from 0.5 % to 88.5 %: the controller starts at 0.5 + 2/10 × 88 and lasts 5/10 × 88.
    expect(svg).toContain('<rect x="18.10%" y="97" width="44.00%" height="12"/>');
    expect(svg).toContain('<text x="18" y="63">RouterListener::onKernelRequest</text>');
    expect(svg).toMatch(
      /<g class="tl-total"><line x1="88.50%"[^>]*\/><text class="tl-head"[^>]*>Total 10.00 ms<\/text><\/g>/,
    );
  });
});

describe('PerformanceCollector.panel', () => {
  const collector = new PerformanceCollector({ collectors: [] } as never, AppConfig.fromEnv({}));
  const data = {
    total: 10,
    untilResponse: 8,
    sections: [
      { name: 'kernel.request', category: 'event', start: 0, duration: 2, listeners: 2 },
      { name: 'RouterListener::onKernelRequest', category: 'listener', start: 0.5, duration: 1.45 },
      { name: 'LocaleListener::onKernelRequest', category: 'listener', start: 1.95, duration: 0.05 },
      { name: 'kernel.response', category: 'event', start: 8, duration: 1, listeners: 1 },
      { name: 'ResponseListener::onKernelResponse', category: 'listener', start: 8, duration: 1 },
    ],
  };
  const panel = (threshold?: string) =>
    collector.panel(data, { profile: {} as never, query: { threshold } }) as Record<string, unknown>;

  it('hides spans under 0.1 ms by default and counts them, shows all at threshold=0, and names the gaps', () => {
    expect(panel()).toMatchObject({ hidden: 1, rowCount: 7, threshold: '0.1', defaultThreshold: true });
    expect(panel().timeline).not.toContain('LocaleListener');
    expect(panel('0')).toMatchObject({ hidden: 0, threshold: '0', defaultThreshold: false });
    expect(panel('0').timeline).toContain('LocaleListener');
    expect(panel('nonsense')).toMatchObject({ threshold: '0.1' });
    expect(panel().gaps).toEqual([
      { label: 'unaccounted (after kernel.request, before kernel.response)', start: '2.00', duration: '6.00' },
      { label: 'after the response was sent, until kernel.terminate', start: '9.00', duration: '1.00' },
    ]);
    expect((panel().legend as { category: string }[]).map((l) => l.category)).toEqual(['event', 'listener', 'gap']);
  });
});

describe('PerformanceCollector.toolbar', () => {
  const data = {
    total: 612.4,
    untilResponse: 600.1,
    sections: [{ name: 'ShopController.checkout', category: 'controller', start: 2, duration: 590.25 }],
  };

  it('colours the block from PROFILER_SLOW_MS and names the controller with its time', () => {
    const collector = new PerformanceCollector(
      { collectors: [] } as never,
      AppConfig.fromEnv({ PROFILER_SLOW_MS: '600' }),
    );
    expect(collector.toolbar(data)).toEqual({
      status: 'warning',
      value: '612',
      rows: [
        { label: 'Total time', value: '612.4 ms' },
        { label: 'Until the response', value: '600.1 ms' },
        { label: 'Controller', value: '590.3 ms in ShopController.checkout' },
        { label: 'Slow from', value: '600 ms (PROFILER_SLOW_MS)', status: 'warning' },
      ],
    });
  });

  it('leaves a request under the threshold uncoloured', () => {
    const collector = new PerformanceCollector({ collectors: [] } as never, AppConfig.fromEnv({}));
    expect(collector.toolbar({ ...data, total: 12 }).status).toBeNull();
  });
});

describe('PerformanceCollector.lateCollect', () => {
  it("takes the total from the request's time at kernel.terminate, not from when it runs (in a later batch)", async () => {
    const collector = new PerformanceCollector({ collectors: [] } as never, AppConfig.fromEnv({}));
    const context = new KernelContext({} as never, 'en');
    const profile = new Profile('0000aa', null, '127.0.0.1', 'GET', '/', 0);
    context.set(PROFILE, profile);
    profile.cut = { logs: 0, listenerCalls: 0, elapsed: 0.5 };
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(collector.lateCollect(context).total).toBe(0.5);
    profile.cut = null;
    const before = context.elapsed();
    expect(before).toBeGreaterThan(10);
    expect(collector.lateCollect(context).total).toBeGreaterThanOrEqual(before);
  });
});
