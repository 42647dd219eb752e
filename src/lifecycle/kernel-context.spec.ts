import { contextKey, KernelContext } from './kernel-context.js';

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

describe('KernelContext keys', () => {
  it('keeps values under typed keys and plain symbols alike, each key its own', () => {
    const context = new KernelContext({} as never, 'en');
    const COUNT = contextKey<{ n: number }>('test.count');
    const OTHER = contextKey<{ n: number }>('test.count');
    const PLAIN = Symbol('test.plain');
    expect(context.get(COUNT)).toBeUndefined();
    context.set(COUNT, { n: 1 });
    context.set<string>(PLAIN, 'plain');
    const count: { n: number } | undefined = context.get(COUNT);
    expect(count).toEqual({ n: 1 });
    expect(context.get(OTHER)).toBeUndefined();
    expect(context.get<string>(PLAIN)).toBe('plain');
    // The key decides the type: `npm run typecheck` fails if a call site names another one.
    // @ts-expect-error a typed key's value is not a string
    context.get<string>(COUNT);
    // @ts-expect-error nor can one be set under it
    context.set(COUNT, 'one');
  });
});
