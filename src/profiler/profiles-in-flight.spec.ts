import { ProfilesInFlight } from './profiles-in-flight.js';

/** Whether `promise` settles before the next turn of the event loop (without waiting for any timer). */
async function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  const nextTurn = new Promise<boolean>((resolve) => setImmediate(() => resolve(false)));
  return Promise.race([promise.then(() => true), nextTurn]);
}

describe('ProfilesInFlight', () => {
  it('resolves at once for a token that is not in flight', async () => {
    const inFlight = new ProfilesInFlight();
    expect(await settlesAtOnce(inFlight.whenSettled('abcdef', 60_000))).toBe(true);
  });

  it('wakes every waiter of a token when it settles, not before', async () => {
    const inFlight = new ProfilesInFlight();
    inFlight.opened('abcdef');
    const woken: string[] = [];
    const first = inFlight.whenSettled('abcdef', 5000).then(() => woken.push('first'));
    const second = inFlight.whenSettled('abcdef', 5000).then(() => woken.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woken).toEqual([]);
    inFlight.settled('abcdef');
    await Promise.all([first, second]);
    expect(woken).toEqual(['first', 'second']);
  });

  it('gives up waiting after the timeout', async () => {
    const inFlight = new ProfilesInFlight();
    inFlight.opened('abcdef');
    const started = Date.now();
    await inFlight.whenSettled('abcdef', 30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('forgets the oldest token past ten thousand, waking its waiters', async () => {
    const inFlight = new ProfilesInFlight();
    inFlight.opened('000000');
    const oldest = inFlight.whenSettled('000000', 60_000);
    for (let i = 1; i <= 10_000; i++) inFlight.opened(i.toString(16).padStart(6, '0'));
    await oldest;
    expect(await settlesAtOnce(inFlight.whenSettled('000000', 60_000))).toBe(true);
  });
});
