import { AppConfig } from '../../config/app-config.js';
import { EditorLinks } from '../editor/editor-links.js';
import { KernelContext } from '../../lifecycle/kernel-context.js';
import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import { LogEntry } from '../../lifecycle/logging/log-entry.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { LogsCollector, type LogsData } from './logs.collector.js';

describe('LogsCollector', () => {
  const collector = new LogsCollector(new EditorLinks(AppConfig.fromEnv({ APP_ENV: 'test', APP_DEBUG: '1' })));
  const events = {
    listeners: [['kernel.request', 'RouterListener::onKernelRequest', 32]],
    calls: [0, 98, 3],
    stopped: [],
  };
  const record = (logs: unknown): ProfileRecord => ({
    token: 'abc123',
    parent: null,
    ip: '127.0.0.1',
    method: 'GET',
    url: '/',
    time: 0,
    statusCode: 200,
    kind: 'application',
    duration: 3.25,
    route: null,
    redirectedFrom: null,
    data: { events, logs },
  });

  function contextWithLogs(): KernelContext {
    const context = new KernelContext({} as never, 'en');
    context.request = { pathInfo: '/' } as never;
    const notified = new LogEntry(
      LogLevel.DEBUG,
      'event',
      NOTIFIED,
      { event: 'kernel.request', listener: 'RouterListener::onKernelRequest' },
      context.startedAt + 3,
    );
    notified.listenerCall = 0;
    context.logs.push(
      notified,
      new LogEntry(LogLevel.INFO, 'request', 'Matched route "{route}".', { route: 'home' }, context.startedAt + 4),
    );
    return context;
  }

  it('stores a listener notification as its call and its time after the request started, and expands it back whole', () => {
    const context = contextWithLogs();
    const stored = collector.lateCollect(context);
    expect(stored.timeBase).toBe(context.startedAt);
    expect(stored.entries[0]).toEqual([0, 3]);
    expect(stored.entries[1]).toEqual({
      level: LogLevel.INFO,
      channel: 'request',
      message: 'Matched route "{route}".',
      context: { route: 'home' },
      time: context.startedAt + 4,
    });
    const expanded = collector.expand(JSON.parse(JSON.stringify(stored)), record(stored));
    expect(expanded.timeBase).toBeUndefined();
    expect(expanded.entries[0]).toEqual({
      level: LogLevel.DEBUG,
      channel: 'event',
      message: NOTIFIED,
      context: { event: 'kernel.request', listener: 'RouterListener::onKernelRequest' },
      time: context.startedAt + 3,
    });
    expect(expanded.entries[1]).toEqual(stored.entries[1]);
  });

  it('reads the notifications of profiles stored before timeBase, whose times are since the epoch', () => {
    const old: LogsData = {
      entries: [[0, 1795525564598] as never],
      truncated: 0,
      counts: { errors: 0, warnings: 0, deprecations: 0, debug: 1 },
    };
    expect(collector.expand(old, record(old)).entries[0]).toMatchObject({ message: NOTIFIED, time: 1795525564598 });
  });
});
