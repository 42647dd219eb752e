import { jest } from '@jest/globals';
import { KernelContext, type ListenerCall } from '../lifecycle/kernel-context.js';
import { LogEntry } from '../lifecycle/logging/log-entry.js';
import { LogLevel } from '../lifecycle/logging/log-level.js';
import { LateCollection, profiledPart, type LateProfile } from './late-collection.js';
import { Profile, PROFILE } from './profile.js';

function late(token: string): LateProfile {
  const context = new KernelContext({} as never, 'en');
  const profile = new Profile(token, null, '127.0.0.1', 'GET', '/', 0);
  context.set(PROFILE, profile);
  return { context, profile };
}

describe('LateCollection', () => {
  afterEach(() => jest.useRealTimers());

  it('completes a batch as soon as it is full, in the order the profiles came', () => {
    const done: string[] = [];
    const collection = new LateCollection((l) => done.push(l.profile.token), { batch: 3, delayMs: 1000 });
    collection.add(late('000001'));
    collection.add(late('000002'));
    expect(done).toEqual([]);
    expect(collection.pending).toBe(2);
    expect(collection.has('000002')).toBe(true);
    collection.add(late('000003'));
    expect(done).toEqual(['000001', '000002', '000003']);
    expect(collection.pending).toBe(0);
    expect(collection.has('000002')).toBe(false);
  });

  it('completes a profile at most delayMs after it came, and at once when drained', () => {
    jest.useFakeTimers();
    const done: string[] = [];
    const collection = new LateCollection((l) => done.push(l.profile.token), { batch: 50, delayMs: 20 });
    collection.add(late('00000a'));
    jest.advanceTimersByTime(19);
    expect(done).toEqual([]);
    collection.add(late('00000b'));
    jest.advanceTimersByTime(1);
    expect(done).toEqual(['00000a', '00000b']);
    collection.add(late('00000c'));
    collection.drain();
    expect(done).toEqual(['00000a', '00000b', '00000c']);
    // The drain cleared the timer: nothing runs twice.
    jest.advanceTimersByTime(100);
    expect(done).toEqual(['00000a', '00000b', '00000c']);
  });
});

describe('profiledPart', () => {
  const call = (event: string): ListenerCall => ({
    event,
    listener: 'L::on',
    priority: 0,
    start: 0,
    duration: 0,
    stoppedPropagation: false,
    tableIndex: 0,
    notifiedAt: -1,
    notifiedTime: 0,
  });

  it("gives the logs and listener calls there were at kernel.terminate, leaving the context's own untouched", () => {
    const { context, profile } = late('0000aa');
    context.logs.push(new LogEntry(LogLevel.INFO, 'app', 'before', {}, 0));
    context.listenerCalls.push(call('kernel.response'));
    profile.cut = { logs: 1, listenerCalls: 1, elapsed: 0 };
    context.logs.push(new LogEntry(LogLevel.DEBUG, 'event', 'after', {}, 0));
    context.listenerCalls.push(call('kernel.terminate'));
    expect(profiledPart(context, 'logs').map((l) => l.template)).toEqual(['before']);
    expect(profiledPart(context, 'listenerCalls').map((c) => c.event)).toEqual(['kernel.response']);
    expect(context.logs).toHaveLength(2);
    expect(context.listenerCalls).toHaveLength(2);
  });

  it("adds to the logs its own late collectors' failures, logged after the cut", () => {
    const { context, profile } = late('0000ac');
    context.logs.push(new LogEntry(LogLevel.INFO, 'app', 'before', {}, 0));
    profile.cut = { logs: 1, listenerCalls: 0, elapsed: 0 };
    context.logs.push(new LogEntry(LogLevel.DEBUG, 'event', 'terminate', {}, 0));
    const failure = new LogEntry(LogLevel.ERROR, 'profiler', 'Collector "x" failed', {}, 0);
    context.logs.push(failure);
    profile.lateLogs = [failure];
    expect(profiledPart(context, 'logs').map((l) => l.template)).toEqual(['before', 'Collector "x" failed']);
  });

  it('gives the arrays themselves while the profile is not cut, or nothing came after', () => {
    const { context, profile } = late('0000ab');
    context.logs.push(new LogEntry(LogLevel.INFO, 'app', 'only', {}, 0));
    expect(profiledPart(context, 'logs')).toBe(context.logs);
    profile.cut = { logs: 1, listenerCalls: 0, elapsed: 0 };
    expect(profiledPart(context, 'logs')).toBe(context.logs);
    expect(profiledPart(context, 'listenerCalls')).toBe(context.listenerCalls);
  });
});
