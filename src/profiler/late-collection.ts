import type { KernelContext } from '../lifecycle/kernel-context.js';
import { Profile } from './profile.js';

/** A profile whose deferrable collectors have yet to run (see DataCollector.deferrable). */
export interface LateProfile {
  context: KernelContext;
  profile: Profile;
}

export interface LateCollectionOptions {
  /** Profiles collected together, at most. */
  batch: number;
  /** A profile waits at most this long (milliseconds). */
  delayMs: number;
}

/**
 * The deferrable part of kernel.terminate's collection, for several requests at once: a batch of requests'
 * collectors run one after the other costs less CPU than each request's alone, the same code and data staying hot
 * in the caches (BENCHMARKS.md). A profile waits at most `delayMs`; whoever needs it earlier (the profile page, a
 * search, a flush) calls `drain()`.
 */
export class LateCollection {
  private queue: LateProfile[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly complete: (late: LateProfile) => void,
    private readonly options: LateCollectionOptions,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  /** Looked through, not indexed: asked only when a profile is opened, and at most `batch` wait. */
  has(token: string): boolean {
    return this.some((late) => late.profile.token === token);
  }

  /** Whether a waiting profile passes the test. */
  some(test: (late: LateProfile) => boolean): boolean {
    return this.queue.some(test);
  }

  add(late: LateProfile): void {
    this.queue.push(late);
    if (this.queue.length >= this.options.batch) this.drain();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.drain(), this.options.delayMs);
      this.timer.unref();
    }
  }

  /** Completes every waiting profile now. */
  drain(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const queue = this.queue;
    this.queue = [];
    for (const late of queue) this.complete(late);
  }
}

/**
 * The request's logs or listener calls its profile holds: those there at kernel.terminate (the kernel records
 * kernel.terminate's own calls after its listeners, the profiler's the last of them, have run; a deferrable
 * collector runs later), and of the logs the failures of its own late collectors after them. The array itself
 * when nothing came after.
 */
export function profiledPart<K extends 'logs' | 'listenerCalls'>(context: KernelContext, kind: K): KernelContext[K] {
  const all = context[kind];
  const profile = Profile.of(context);
  const n = profile?.cut ? profile.cut[kind] : all.length;
  const part = n < all.length ? all.slice(0, n) : all;
  if (kind === 'logs' && profile?.lateLogs) return [...part, ...profile.lateLogs] as KernelContext[K];
  return part as KernelContext[K];
}
