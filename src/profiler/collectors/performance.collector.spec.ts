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

describe('PerformanceCollector.lateCollect', () => {
  it("takes the total from the request's time at kernel.terminate, not from when it runs (in a later batch)", async () => {
    const collector = new PerformanceCollector({ collectors: [] } as never);
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
