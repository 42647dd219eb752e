import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { AppConfig } from '../config/app-config.js';
import { ConfigurationError } from '../config/configuration.error.js';
import { ProcessCrashHandler } from '../lifecycle/crash/process-crash.handler.js';
import { HttpKernel } from '../lifecycle/http-kernel.js';
import type { KernelContext } from '../lifecycle/kernel-context.js';
import type { ResponseHandle } from '../lifecycle/http/response-handle.js';
import { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../lifecycle/logging/log-level.js';
import type { LogEntry } from '../lifecycle/logging/log-entry.js';
import { classOf, messageOf } from '../lifecycle/errors/exception-status.js';
import { DataCollector } from './collectors/data-collector.js';
import { Profile, PROFILE } from './profile.js';
import { ProfileRetention } from './storage/profile-retention.js';
import { ProfileWriteBuffer } from './storage/profile-write-buffer.js';
import type {
  ProfileKind,
  ProfileRecord,
  ProfileSearchCriteria,
  ProfileSearchResult,
  ProfileSummary,
} from './storage/profile-record.js';
import { ProfilerStorage } from './storage/profiler-storage.js';
import { ProfilerStorageOpenError } from './storage/profiler-storage-open.error.js';
import { TokenAllocator } from './tokens/token-allocator.js';
import { logStoreFailure } from './store-failure.js';
import { Redactor } from '../lifecycle/redaction/redactor.js';
import { profileTexts, type SearchedText } from './profile-texts.js';
import { LateCollection, type LateProfile } from './late-collection.js';
import { isProfilerPage } from './profiler-path.js';
import { isAssetRequest } from './asset-type.js';
import { ProfilesInFlight } from './profiles-in-flight.js';
import { packedRecord } from './packed-record.js';

/** How long a page waits for the profiles still buffered to be written before it reads the store. */
const FLUSH_WAIT_MS = 2000;
/** Profiles whose deferrable collectors run together (LateCollection), and how long one waits at most (ms). */
const LATE_BATCH = 50;
const LATE_DELAY_MS = 20;

/** The store's state, for the search page and the CLI. */
export interface ProfilerStats {
  /** Null while the store cannot be read (`storeError` says why). */
  stored: number | null;
  pending: number;
  dropped: number;
  bytes: number | null;
  /** Why the store could not be counted (down, locked …); the buffer's counts are known anyway. */
  storeError?: string;
  /** Tokens sent without a reservation (a shared store whose reservations ran out): see TokenAllocator. */
  unreserved: number;
}

/**
 * The profiler: opens a profile as each request enters the kernel (before kernel.request), lets every collector
 * record its data at kernel.response and kernel.terminate, and hands the finished profile to the write buffer,
 * which stores it in batches after the response has been sent. Reading goes through the buffer first, so a
 * profile can be opened the moment its response arrives. Tokens come from the TokenAllocator the ProfilerModule
 * chose for the store (src/profiler/tokens/).
 */
@Injectable()
export class ProfilerService implements OnModuleInit, OnApplicationShutdown {
  private collectorList: DataCollector[] = [];
  private readonly buffer: ProfileWriteBuffer;
  private readonly retention: ProfileRetention;
  private readonly late = new LateCollection((late) => this.complete(late), {
    batch: LATE_BATCH,
    delayMs: LATE_DELAY_MS,
  });
  private readonly inFlight = new ProfilesInFlight();
  private readonly completedListeners: Array<(record: ProfileRecord) => void> = [];

  constructor(
    private readonly config: AppConfig,
    private readonly kernel: HttpKernel,
    private readonly storage: ProfilerStorage,
    private readonly discovery: DiscoveryService,
    private readonly logger: KernelLogger,
    private readonly crashes: ProcessCrashHandler,
    private readonly tokens: TokenAllocator,
  ) {
    const settings = config.profiler;
    this.buffer = new ProfileWriteBuffer(storage, {
      batchSize: settings.batchSize,
      flushIntervalMs: settings.flushIntervalMs,
      bufferLimit: settings.bufferLimit,
      onError: (error: unknown) => this.storeFailed(error),
      isProfileError: (error: unknown) => storage.isProfileError(error),
    });
    this.retention = new ProfileRetention(storage, this.tokens, {
      maxProfiles: settings.maxProfiles,
      maxAgeMs: settings.maxAgeSeconds * 1000,
      intervalMs: settings.retentionIntervalMs,
      onError: (error: unknown) => this.storeFailed(error),
    });
  }

  get enabled(): boolean {
    return this.config.profiler.enabled;
  }

  async onModuleInit(): Promise<void> {
    this.collectorList = this.discoverCollectors();
    if (!this.enabled) return;
    await this.openStorage();
    await this.tokens.start();
    this.retention.start();
    this.kernel.onRequestStart((context) => this.open(context));
    this.crashes.onCrash((timeLeftMs) => this.flushOnCrash(timeLeftMs));
  }

  /** A store that cannot be opened is a configuration mistake: the variable that named it says where to look. */
  private async openStorage(): Promise<void> {
    try {
      await this.storage.open();
      await this.storage.checkWritable();
      const notice = this.storage.openNotice;
      if (notice !== null) this.logger.record(LogLevel.WARNING, 'profiler', '{notice}', { notice });
    } catch (error) {
      if (!(error instanceof ProfilerStorageOpenError)) throw error;
      throw new ConfigurationError(this.config.profiler.dsnVariable, error.message);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.enabled) return;
    this.retention.stop();
    this.tokens.stop();
    // The profiles first: the HTTP server is closed by now, so every response sent has its profile collected or
    // waiting here.
    this.late.drain();
    const lost = await this.buffer.close(this.config.profiler.shutdownTimeoutMs);
    if (lost > 0) {
      this.logger.record(
        LogLevel.CRITICAL,
        'profiler',
        '{lost} profile(s) were lost at shutdown: the store did not take them within {timeout} ms.',
        {
          lost,
          timeout: this.config.profiler.shutdownTimeoutMs,
        },
      );
    }
    await this.tokens.close();
    await this.storage.close().catch((error: unknown) => this.storeFailed(error));
  }

  /** Whether a profile completed now will be stored: not once the store is closed (shutdown, crash). */
  get storing(): boolean {
    return this.buffer.open;
  }

  /**
   * The process is crashing (ProcessCrashHandler): every profile collected, the late ones too, goes to the store
   * before the exit, synchronously where the store can (SQLite: nothing else runs meanwhile), otherwise within
   * `timeLeftMs` and PROFILER_SHUTDOWN_TIMEOUT_MS (the promise returned).
   */
  flushOnCrash(timeLeftMs: number): void | Promise<void> {
    if (!this.enabled) return;
    this.retention.stop();
    this.tokens.stop();
    this.late.drain();
    const lost = this.buffer.closeNow();
    if (lost !== null) return this.reportCrashLoss(lost, 0);
    const timeout = Math.min(timeLeftMs, this.config.profiler.shutdownTimeoutMs);
    return this.buffer.close(timeout).then((left) => this.reportCrashLoss(left, timeout));
  }

  private reportCrashLoss(lost: number, timeoutMs: number): void {
    if (lost === 0) return;
    const why = timeoutMs > 0 ? 'the store did not take them within {timeout} ms' : 'the store failed';
    this.logger.record(LogLevel.CRITICAL, 'profiler', `{lost} profile(s) were lost in the crash: ${why}.`, {
      lost,
      ...(timeoutMs > 0 ? { timeout: timeoutMs } : {}),
    });
  }

  /** Every collector of the application, highest priority first. */
  get collectors(): readonly DataCollector[] {
    return this.collectorList;
  }

  collector(name: string): DataCollector | undefined {
    return this.collectorList.find((c) => c.name === name);
  }

  open(context: KernelContext): Profile | undefined {
    const request = context.request;
    const path = request.pathInfo;
    if (this.config.profiler.excludedPaths.some((pattern) => pattern.test(path))) return undefined;
    // Sub-requests (none yet: the error page is rendered in place) would pass their parent's token here.
    const token = this.tokens.next();
    const profile = new Profile(token, null, request.clientIp, request.method, request.maskedUri, context.startedAt);
    profile.ownPage = isProfilerPage(path);
    if (profile.ownPage) profile.kind = 'profiler';
    context.set(PROFILE, profile);
    this.inFlight.opened(token);
    return profile;
  }

  /** kernel.response: each collector records what it needs while the request and response are at hand. */
  collect(context: KernelContext, profile: Profile, response: ResponseHandle): void {
    profile.statusCode = response.status;
    profile.route = context.request.routeName ?? null;
    if (profile.kind === 'application' && isAssetRequest(context.request.pathInfo, response.contentType))
      profile.kind = 'asset';
    for (const collector of this.collectorList) {
      if (!collector.collect) continue;
      try {
        const data = collector.collect(context, response);
        if (data !== undefined) profile.data[collector.name] = data;
      } catch (error) {
        this.collectorFailed(collector, error, context);
      }
    }
  }

  /**
   * kernel.terminate: the late collectors that read the moment (memory) now, the deferrable ones with other
   * requests' a little later (LateCollection), then the profile goes to the store.
   */
  finish(context: KernelContext, profile: Profile, statusCode: number): void {
    if (profile.statusCode === 0) profile.statusCode = statusCode;
    let deferred = false;
    for (const collector of this.collectorList) {
      if (!collector.lateCollect) continue;
      if (collector.deferrable) {
        deferred = true;
        // Its place among the profile's keys is kept: the stored JSON's order is the one the dictionary knows.
        if (!(collector.name in profile.data)) profile.data[collector.name] = undefined;
      } else this.lateCollect(collector, context, profile);
    }
    profile.cut = {
      logs: context.logs.length,
      listenerCalls: context.listenerCalls.length,
      elapsed: context.elapsed(),
    };
    const late: LateProfile = { context, profile };
    if (deferred) this.late.add(late);
    else this.complete(late);
    this.inFlight.settled(profile.token);
  }

  private complete(late: LateProfile): void {
    const { context, profile } = late;
    try {
      for (const collector of this.collectorList) {
        if (!collector.lateCollect || !collector.deferrable) continue;
        const failure = this.lateCollect(collector, context, profile);
        // Logged after the cut, yet the request's own: its Logs panel shows it, as when collectors ran at once.
        if (failure) (profile.lateLogs ??= []).push(failure);
      }
      const record = profile.toRecord();
      record.text = profileTexts(this.collectorList, record).map((t) => t.text);
      this.buffer.add(packedRecord(record), this.background(profile));
      for (const listener of this.completedListeners) listener(record);
    } catch (error) {
      this.storeFailed(error);
    }
  }

  /**
   * A stored profile's texts as full-text search indexed them, each with the panel it comes from (the search page
   * shows where a query matched); none for a profile not stored.
   */
  async searchTexts(token: string): Promise<SearchedText[]> {
    const record = await this.stored(token);
    return record ? profileTexts(this.collectorList, record) : [];
  }

  /** Its failure's log entry, if it failed. */
  private lateCollect(collector: DataCollector, context: KernelContext, profile: Profile): LogEntry | undefined {
    try {
      const data = collector.lateCollect!(context, profile.data[collector.name] as never);
      if (data !== undefined) profile.data[collector.name] = data;
      return undefined;
    } catch (error) {
      return this.collectorFailed(collector, error, context);
    }
  }

  /** A profile whose request is still being handled, once it is complete (at most `timeoutMs` later); null if none. */
  async loadWhenComplete(token: string, timeoutMs: number): Promise<ProfileRecord | null> {
    await this.inFlight.whenSettled(token, timeoutMs);
    return this.load(token);
  }

  /**
   * Calls `listener` with each profile once it is complete and handed to the store (after its response has been
   * sent), as stored: compact (`expand` restores what the panels read). For exporters; a listener must not block.
   */
  onCompleted(listener: (record: ProfileRecord) => void): void {
    this.completedListeners.push(listener);
  }

  /** A profile as its panels read it: each collector's compact stored form expanded (DataCollector.expand). */
  async load(token: string): Promise<ProfileRecord | null> {
    const record = await this.stored(token);
    return record && this.expand(record);
  }

  /** A profile as stored (compact), from the write buffer while it waits there; completed first if it is late. */
  private async stored(token: string): Promise<ProfileRecord | null> {
    if (this.late.has(token)) this.late.drain();
    const waiting = this.buffer.get(token);
    // A copy, its data read now: once the store has written it, a waiting record's JSON may be written over.
    return waiting ? { ...waiting } : await this.storage.read(token);
  }

  expand(record: ProfileRecord): ProfileRecord {
    const data = { ...record.data };
    for (const collector of this.collectorList) {
      if (!collector.expand || data[collector.name] === undefined) continue;
      try {
        data[collector.name] = collector.expand(record.data[collector.name], record);
      } catch (error) {
        // Shown as stored: a panel with odd data is better than no profile.
        this.logger.record(
          LogLevel.ERROR,
          'profiler',
          'Collector "{collector}" could not read its stored data: {message}',
          {
            collector: collector.name,
            message: `${classOf(error)}: ${messageOf(error)}`,
          },
        );
      }
    }
    // A profile stored by an older version may hold its URL raw: every reader gets it masked.
    return { ...record, url: Redactor.url(record.url), data };
  }

  async find(criteria: ProfileSearchCriteria): Promise<ProfileSearchResult> {
    await this.flushForPages();
    const found = await this.storage.find(criteria);
    return { ...found, rows: found.rows.map((row) => ({ ...row, url: Redactor.url(row.url) })) };
  }

  /** The newest application request (not a profiler page, not an asset). */
  async latest(): Promise<ProfileSummary | null> {
    return (await this.find({ limit: 1, kinds: ['application'] })).rows[0] ?? null;
  }

  async neighbours(
    token: string,
    kinds?: readonly ProfileKind[],
  ): Promise<{ previous: ProfileSummary | null; next: ProfileSummary | null }> {
    await this.flushForPages();
    return this.storage.neighbours(token, kinds);
  }

  /** The requests this profile's redirect led to. */
  async redirectsFrom(token: string): Promise<ProfileSummary[]> {
    await this.flushForPages();
    return this.storage.redirectsFrom(token);
  }

  /** Never rejects: while the store is down, what waits and what was dropped is exactly what matters. */
  async stats(): Promise<ProfilerStats> {
    const buffered = {
      pending: this.buffer.pending + this.late.pending,
      dropped: this.buffer.dropped,
      unreserved: this.tokens.unreserved,
    };
    try {
      return { ...buffered, stored: (await this.storage.find({ limit: 0 })).total, bytes: await this.storage.size() };
    } catch (error) {
      return { ...buffered, stored: null, bytes: null, storeError: `${classOf(error)}: ${messageOf(error)}` };
    }
  }

  /** Writes every waiting profile now (tests, shutdown, the CLI). */
  flush(): Promise<void> {
    this.late.drain();
    return this.buffer.flush();
  }

  /** Learns the tokens other instances wrote now (a shared store; the poll runs every few seconds anyway). */
  async syncTokens(): Promise<number> {
    return this.tokens.sync();
  }

  /** Applies retention now. */
  prune(): Promise<unknown> {
    return this.retention.run();
  }

  /**
   * The profiler's pages read the store after writing what waits, so that they list the requests just made, except
   * the pages the profiler itself served (Profile.ownPage) waiting after the newest other profile: those are left to
   * their batch, or every page viewed would write the previous view's profile in a transaction of its own. The
   * profiler's redirects are written first: the search page lists the `/_profiler` 301 and 302 that led to it.
   */
  private flushForPages(): Promise<void> {
    if (this.late.some((late) => !this.background(late.profile))) this.late.drain();
    return this.untilWritten(this.buffer.flushForeground());
  }

  /** A page the profiler served itself (not one of its redirects or errors): see flushForPages. */
  private background(profile: Profile): boolean {
    return profile.ownPage && profile.statusCode >= 200 && profile.statusCode < 300;
  }

  /** A write that hangs (a store that stopped answering) must not hold a page longer than FLUSH_WAIT_MS. */
  private untilWritten(written: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_WAIT_MS);
    });
    return Promise.race([written, waited]).finally(() => clearTimeout(timer));
  }

  private discoverCollectors(): DataCollector[] {
    const found: DataCollector[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance;
      if (instance instanceof DataCollector && !found.includes(instance)) found.push(instance);
    }
    const names = new Set<string>();
    for (const collector of found) {
      if (names.has(collector.name)) throw new Error(`Two profiler collectors are named "${collector.name}".`);
      names.add(collector.name);
    }
    // Stable: equal priorities keep module order.
    return found
      .map((c, i) => ({ c, i }))
      .sort((a, b) => b.c.priority - a.c.priority || a.i - b.i)
      .map(({ c }) => c);
  }

  private collectorFailed(collector: DataCollector, error: unknown, context: KernelContext): LogEntry {
    return this.logger.record(
      LogLevel.ERROR,
      'profiler',
      'Collector "{collector}" failed: {message}',
      {
        collector: collector.name,
        message: `${classOf(error)}: ${messageOf(error)}`,
        exception: error,
      },
      context,
    );
  }

  private storeFailed(error: unknown): void {
    logStoreFailure(this.logger, error);
  }
}
