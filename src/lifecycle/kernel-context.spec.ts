import { KernelContext } from './kernel-context.js';

describe('KernelContext times', () => {
  const microseconds = (ms: number) => Math.round(ms * 1000) / 1000;

  it('gives elapsed() and since() to the microsecond (durations are differences of elapsed() values)', () => {
    const context = new KernelContext({} as never, 'en');
    const start = context.elapsed();
    let spin = 0;
    while (performance.now() - context.start < start + 1.3) spin++;
    const duration = context.since(start);
    expect(spin).toBeGreaterThan(0);
    expect(microseconds(start)).toBe(start);
    expect(microseconds(duration)).toBe(duration);
    expect(duration).toBeGreaterThanOrEqual(1.299);
    expect(context.elapsed()).toBeGreaterThanOrEqual(microseconds(start + duration));
  });
});
