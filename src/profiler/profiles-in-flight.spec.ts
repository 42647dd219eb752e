import { ProfilesInFlight } from './profiles-in-flight.js';

describe('ProfilesInFlight', () => {
  it('resolves at once for a token that is not in flight', async () => {
    const inFlight = new ProfilesInFlight();
    const started = Date.now();
    await inFlight.whenSettled('abcdef', 5000);
    expect(Date.now() - started).toBeLessThan(50);
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
    const started = Date.now();
    await inFlight.whenSettled('000000', 5000);
    expect(Date.now() - started).toBeLessThan(50);
  });
});
