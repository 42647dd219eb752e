import { contextKey, type KernelContext } from '../lifecycle/kernel-context.js';
import type { LogEntry } from '../lifecycle/logging/log-entry.js';
import type { ProfileKind, ProfileRecord } from './storage/profile-record.js';

/** Where a request's profile lives on its KernelContext. */
export const PROFILE = contextKey<Profile>('shopkernel.profile');

/**
 * The profile of a request in flight: opened as the request enters the kernel, filled by the collectors at
 * kernel.response and kernel.terminate, then handed to the store.
 */
export class Profile {
  /** Each collector's data, by collector name, in collection order. */
  readonly data: Record<string, unknown> = {};
  statusCode = 0;
  /** Set at kernel.response: a profiler page's stays 'profiler', an asset is known by its response's type. */
  kind: ProfileKind = 'application';
  route: string | null = null;
  /** The redirect this request followed (RedirectTrail), by its token. */
  redirectedFrom: string | null = null;
  /**
   * How many of the request's logs and listener calls the profile holds: those there at kernel.terminate (set
   * then; see late-collection.ts's profiledPart), and the request's time then (the Performance panel's total).
   */
  cut: { logs: number; listenerCalls: number; elapsed: number } | null = null;
  /** Entries its late collectors logged after the cut (a collector failing): the request's, so the profile's. */
  lateLogs: LogEntry[] | null = null;
  /**
   * A request for one of the profiler's own pages: its profile is stored like any other, but when the page was
   * served (2xx) the profiler's pages do not write it before reading the store (ProfilerService.flushForPages), so
   * that browsing the profiler does not force a write per page.
   */
  ownPage = false;

  constructor(
    readonly token: string,
    readonly parent: string | null,
    readonly ip: string,
    readonly method: string,
    readonly url: string,
    /** Milliseconds since the epoch. */
    readonly time: number,
  ) {}

  static of(context: KernelContext | undefined): Profile | undefined {
    return context?.get(PROFILE);
  }

  toRecord(): ProfileRecord {
    return {
      token: this.token,
      parent: this.parent,
      ip: this.ip,
      method: this.method,
      url: this.url,
      time: this.time,
      statusCode: this.statusCode,
      kind: this.kind,
      duration: this.cut === null ? null : Math.round(this.cut.elapsed * 1000) / 1000,
      route: this.route,
      redirectedFrom: this.redirectedFrom,
      data: this.data,
    };
  }
}
