/** Most tokens followed at once: a profile whose request never reached kernel.terminate must not be kept forever. */
const MAX_FOLLOWED = 10_000;

/**
 * The profiles of requests still being handled: opened when the request entered the kernel, settled once they are
 * handed over at kernel.terminate. A page's toolbar is fetched as soon as the page arrives, often before its own
 * request has terminated; the toolbar waits for its profile here instead of answering 404 and being asked again.
 */
export class ProfilesInFlight {
  private readonly waiting = new Map<string, (() => void)[] | null>();

  opened(token: string): void {
    if (this.waiting.size >= MAX_FOLLOWED) this.settled(this.waiting.keys().next().value!);
    this.waiting.set(token, null);
  }

  settled(token: string): void {
    const waiters = this.waiting.get(token);
    this.waiting.delete(token);
    if (waiters) for (const wake of waiters) wake();
  }

  /** Resolves once the profile is settled, or after `timeoutMs`; at once for a token not in flight. */
  whenSettled(token: string, timeoutMs: number): Promise<void> {
    if (!this.waiting.has(token)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const waiters = this.waiting.get(token) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.waiting.set(token, waiters);
    });
  }
}
