import { newSpanId, newTraceId, parseTraceparent, traceparent } from './trace-context.js';

describe('W3C trace context', () => {
  it('reads a traceparent: trace, parent span, sampled flag', () => {
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
      sampled: true,
    });
    expect(parseTraceparent(' 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ')!.sampled).toBe(false);
  });

  it.each([
    [undefined],
    [''],
    ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7'],
    ['00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
  ])('starts a new trace rather than follow %p', (header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it('writes a traceparent, and makes ids of the right length', () => {
    expect(traceparent('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7', true)).toBe(
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    );
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newSpanId()).not.toBe(newSpanId());
  });
});
