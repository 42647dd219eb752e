import { timelineSvg } from './performance.collector.js';

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
