import { AppConfig } from '../../config/app-config.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { Profile, PROFILE } from '../profile.js';
import { PerformanceCollector, timelineSvg } from './performance.collector.js';

describe('timelineSvg', () => {
  const data = {
    total: 10,
    untilResponse: 8,
    sections: [
      { name: 'kernel.request', category: 'event' as const, start: 0, duration: 2, listeners: 1 },
      { name: 'RouterListener::onKernelRequest', category: 'listener' as const, start: 0.5, duration: 1 },
      { name: '<script>alert(1)</script>', category: 'controller' as const, start: 2, duration: 5 },
    ],
  };

  it('draws one row per section, scaled to the total, with escaped labels', () => {
    const svg = timelineSvg(data);
    expect(svg.startsWith('<svg class="timeline"')).toBe(true);
    expect(svg.match(/<rect /g)).toHaveLength(3);
    expect(svg).toContain('class="tl-event"');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).not.toContain('<script>');
    // 560 px for 10 ms: the controller bar starts at 330 + 2 × 56 and is 5 × 56 wide
    expect(svg).toContain('<rect x="442.0" y="57" width="280.0"');
    expect(svg).toContain('Total 10.00 ms');
  });
});

describe('PerformanceCollector.toolbar', () => {
  const data = { total: 612.4, untilResponse: 600.1, sections: [{ name: 'ShopController.checkout', category: 'controller', start: 2, duration: 590.25 }] };

  it('colours the block from PROFILER_SLOW_MS and names the controller with its time', () => {
    const collector = new PerformanceCollector({ collectors: [] } as never, AppConfig.fromEnv({ PROFILER_SLOW_MS: '600' }));
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
