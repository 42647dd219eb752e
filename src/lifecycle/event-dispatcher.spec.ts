import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Request, Response } from 'express';
import { AppConfig } from '../config/app-config.js';
import type { KernelEventDispatcher } from './event-dispatcher.js';
import { jest } from '@jest/globals';
import { createEventDispatcher, requestLog, withNotifications } from './traceable-event-dispatcher.js';
import type { LogEntry } from './logging/log-entry.js';
import { KernelRequest } from './http/kernel-request.js';
import { KernelContext } from './kernel-context.js';
import { FinishRequestEvent, RequestEvent } from './kernel.events.js';
import { KernelLogger } from './logging/kernel-logger.js';
import { LogLevel } from './logging/log-level.js';

function setup(env: Record<string, string> = {}): {
  dispatcher: KernelEventDispatcher;
  context: KernelContext;
  event: () => RequestEvent;
  bus: EventEmitter2;
} {
  const bus = new EventEmitter2();
  const logger = new KernelLogger(AppConfig.fromEnv({ APP_ENV: 'test', ...env }));
  const dispatcher = createEventDispatcher(bus, logger);
  const context = new KernelContext({} as Response, 'en');
  context.request = new KernelRequest({ method: 'GET', headers: {} } as Request, context, 'en');
  return { dispatcher, context, bus, event: () => new RequestEvent(context.request) };
}

describe('KernelEventDispatcher (traced by TraceableEventDispatcher when someone will see the calls)', () => {
  it('records the calls and their DEBUG entries in debug mode, and nothing nobody would see without it', () => {
    for (const [env, recorded] of [
      [{ APP_DEBUG: '1' }, true],
      [{ APP_DEBUG: '0', LOG_LEVEL: 'info' }, false],
      [{ APP_DEBUG: '0', LOG_LEVEL: 'debug' }, true],
    ] as const) {
      const { dispatcher, event, context } = setup(env);
      const calls: string[] = [];
      dispatcher.addListener('kernel.request', () => calls.push('a'), 0, 'A::a');
      dispatcher.dispatch(event());
      expect(calls).toEqual(['a']);
      expect(context.listenerCalls.map((c) => c.listener)).toEqual(recorded ? ['A::a'] : []);
      expect(requestLog(context).map((e) => e.message)).toEqual(
        recorded ? ['Notified event "kernel.request" to listener "A::a".'] : [],
      );
    }
  });

  it('marks what the listeners log with their event (the innermost of a nested dispatch), and nothing written between events', async () => {
    const bus = new EventEmitter2();
    const logger = new KernelLogger(AppConfig.fromEnv({ APP_ENV: 'test', APP_DEBUG: '1' }));
    const dispatcher = createEventDispatcher(bus, logger);
    const context = new KernelContext({} as Response, 'en');
    context.request = new KernelRequest({ method: 'GET', headers: {} } as Request, context, 'en');
    const log = (message: string) => logger.record(LogLevel.DEBUG, 'app', message, {}, context);
    dispatcher.addListener(
      'kernel.request',
      () => {
        log('in request');
        dispatcher.dispatch(new FinishRequestEvent(context.request));
      },
      0,
      'A::a',
    );
    dispatcher.addListener(
      'kernel.request',
      (event: RequestEvent) => event.waitFor(Promise.resolve().then(() => log('after a wait'))),
      -1,
      'A::wait',
    );
    dispatcher.addListener('kernel.finish_request', () => log('finishing'), 0, 'F::f');
    log('before');
    await dispatcher.dispatch(new RequestEvent(context.request)).settled;
    log('between');
    const written = context.logs.filter((e) => e.channel === 'app').map((e) => [e.message, e.during ?? null]);
    expect(written).toEqual([
      ['before', null],
      ['in request', 'kernel.request'],
      ['finishing', 'kernel.finish_request'],
      ['after a wait', 'kernel.request'],
      ['between', null],
    ]);
    // Each dispatch's notifications come after what its listeners wrote, the nested one's first.
    expect(requestLog(context).map((e) => (e.channel === 'app' ? e.message : `${e.context.listener}`))).toEqual([
      'before',
      'in request',
      'finishing',
      'F::f',
      'after a wait',
      'A::a',
      'A::wait',
      'between',
    ]);
    expect(requestLog(context).map((e) => e.listenerCall ?? null)).toEqual([null, null, null, 0, null, 1, 2, null]);
    const mark = (e: LogEntry) => e.message;
    expect(withNotifications(context.logs, context.listenerCalls, mark, (call) => call.listener, 4)).toEqual([
      'before',
      'in request',
      'finishing',
      'F::f',
    ]);
  });

  it('prints each notification where debug entries are printed, though it keeps none on the request', () => {
    const printed: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      const { dispatcher, event, context } = setup({ APP_DEBUG: '0', LOG_LEVEL: 'debug' });
      dispatcher.addListener('kernel.request', () => undefined, 0, 'A::a');
      dispatcher.dispatch(event());
      expect(context.logs).toHaveLength(0);
      expect(printed).toHaveLength(1);
      expect(printed[0]).toContain('event.DEBUG: Notified event "kernel.request" to listener "A::a".');
    } finally {
      write.mockRestore();
    }
  });

  it('calls listeners by priority, highest first, and in registration order at equal priority', () => {
    const { dispatcher, event } = setup();
    const calls: string[] = [];
    dispatcher.addListener('kernel.request', () => calls.push('a0'), 0, 'A::a0');
    dispatcher.addListener('kernel.request', () => calls.push('b32'), 32, 'B::b32');
    dispatcher.addListener('kernel.request', () => calls.push('c0'), 0, 'C::c0');
    dispatcher.addListener('kernel.request', () => calls.push('d-5'), -5, 'D::d');
    dispatcher.addListener('kernel.request', () => calls.push('e32'), 32, 'E::e32');
    dispatcher.addListener('kernel.request', () => calls.push('f2048'), 2048, 'F::f');
    dispatcher.dispatch(event());
    expect(calls).toEqual(['f2048', 'b32', 'e32', 'a0', 'c0', 'd-5']);
    expect(dispatcher.getListeners('kernel.request').map((l) => l.name)).toEqual([
      'F::f',
      'B::b32',
      'E::e32',
      'A::a0',
      'C::c0',
      'D::d',
    ]);
  });

  it('stops calling listeners once one stops propagation, and logs who stopped it', () => {
    const { dispatcher, event, context } = setup();
    const calls: string[] = [];
    dispatcher.addListener('kernel.request', () => calls.push('first'), 10, 'First::run');
    dispatcher.addListener(
      'kernel.request',
      (e: RequestEvent) => {
        calls.push('stopper');
        e.stopPropagation();
      },
      5,
      'Stopper::run',
    );
    dispatcher.addListener('kernel.request', () => calls.push('never'), 0, 'Never::run');
    const dispatched = dispatcher.dispatch(event());
    expect(calls).toEqual(['first', 'stopper']);
    expect(dispatched.isPropagationStopped()).toBe(true);
    expect(requestLog(context).map((l) => l.message)).toEqual([
      'Notified event "kernel.request" to listener "First::run".',
      'Notified event "kernel.request" to listener "Stopper::run".',
      'Listener "Stopper::run" stopped propagation of the event "kernel.request".',
    ]);
    expect(context.listenerCalls.map((c) => [c.listener, c.stoppedPropagation])).toEqual([
      ['First::run', false],
      ['Stopper::run', true],
    ]);
  });

  it('writes one DEBUG event entry per listener notified, with the exact context', () => {
    const { dispatcher, event, context } = setup();
    dispatcher.addListener('kernel.request', () => undefined, 1, 'RouterListener::onKernelRequest');
    dispatcher.dispatch(event());
    // Made when read, in its place: not kept on the request, where some thirty a request would wait to be read.
    expect(context.logs).toHaveLength(0);
    expect(requestLog(context)).toHaveLength(1);
    const [entry] = requestLog(context);
    expect(entry.levelName).toBe('DEBUG');
    expect(entry.channel).toBe('event');
    expect(entry.message).toBe('Notified event "kernel.request" to listener "RouterListener::onKernelRequest".');
    expect(entry.context).toEqual({ event: 'kernel.request', listener: 'RouterListener::onKernelRequest' });
  });

  it('lets a listener error propagate after logging the listeners called so far', () => {
    const { dispatcher, event, context } = setup();
    const calls: string[] = [];
    dispatcher.addListener('kernel.request', () => calls.push('ok'), 10, 'Ok::run');
    dispatcher.addListener(
      'kernel.request',
      () => {
        throw new Error('no route');
      },
      5,
      'Router::run',
    );
    dispatcher.addListener('kernel.request', () => calls.push('after'), 0, 'After::run');
    expect(() => dispatcher.dispatch(event())).toThrow('no route');
    expect(calls).toEqual(['ok']);
    expect(requestLog(context).map((l) => l.context.listener)).toEqual(['Ok::run', 'Router::run']);
  });

  it('records each call with its priority and a duration', () => {
    const { dispatcher, event, context } = setup();
    dispatcher.addListener(
      'kernel.request',
      () => {
        const until = performance.now() + 2;
        while (performance.now() < until);
      },
      7,
      'Slow::run',
    );
    dispatcher.dispatch(event());
    expect(context.listenerCalls).toHaveLength(1);
    expect(context.listenerCalls[0]).toMatchObject({ event: 'kernel.request', listener: 'Slow::run', priority: 7 });
    expect(context.listenerCalls[0].duration).toBeGreaterThanOrEqual(2);
  });

  it('runs on the EventEmitter2 bus and leaves other handlers of the bus alone', () => {
    const { dispatcher, event, bus } = setup();
    const foreign: string[] = [];
    bus.on('kernel.request', () => foreign.push('foreign'));
    dispatcher.addListener('kernel.request', () => foreign.push('ours'), 0, 'Ours::run');
    dispatcher.dispatch(event());
    expect(foreign).toEqual(['foreign', 'ours']);
    expect(bus.listeners('kernel.request')).toHaveLength(2);
  });

  it('removes a listener', () => {
    const { dispatcher, event } = setup();
    const calls: string[] = [];
    const listener = dispatcher.addListener('kernel.request', () => calls.push('x'), 0, 'X::run');
    dispatcher.removeListener(listener);
    dispatcher.dispatch(event());
    expect(calls).toEqual([]);
    expect(dispatcher.getListeners('kernel.request')).toHaveLength(0);
  });

  describe('a listener that waits (event.waitFor)', () => {
    function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
      let resolve!: () => void;
      let reject!: (error: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    }

    it('calls the listeners after it only once its task resolves, in order, and settles after the last', async () => {
      const { dispatcher, event, context } = setup();
      const calls: string[] = [];
      const load = deferred();
      dispatcher.addListener('kernel.request', () => calls.push('first'), 20, 'First::run');
      dispatcher.addListener(
        'kernel.request',
        (e: RequestEvent) => {
          calls.push('loader');
          e.waitFor(load.promise);
        },
        10,
        'Loader::run',
      );
      dispatcher.addListener('kernel.request', () => calls.push('after'), 0, 'After::run');
      dispatcher.addListener('kernel.request', () => calls.push('last'), -10, 'Last::run');
      const dispatched = dispatcher.dispatch(event());
      expect(calls).toEqual(['first', 'loader']);
      expect(dispatched.settled).toBeInstanceOf(Promise);
      expect(requestLog(context)).toHaveLength(0);
      await new Promise((r) => setTimeout(r, 5));
      expect(calls).toEqual(['first', 'loader']);
      load.resolve();
      await dispatched.settled;
      expect(calls).toEqual(['first', 'loader', 'after', 'last']);
      expect(context.listenerCalls.map((c) => c.listener)).toEqual([
        'First::run',
        'Loader::run',
        'After::run',
        'Last::run',
      ]);
      expect(context.listenerCalls[1].duration).toBeGreaterThanOrEqual(4);
      expect(requestLog(context).map((l) => l.message)).toEqual([
        'Notified event "kernel.request" to listener "First::run".',
        'Notified event "kernel.request" to listener "Loader::run".',
        'Notified event "kernel.request" to listener "After::run".',
        'Notified event "kernel.request" to listener "Last::run".',
      ]);
    });

    it('waits again for a later listener that waits, and honours a stop of propagation after a wait', async () => {
      const { dispatcher, event } = setup();
      const calls: string[] = [];
      dispatcher.addListener(
        'kernel.request',
        (e: RequestEvent) => {
          calls.push('a');
          e.waitFor(Promise.resolve());
        },
        3,
        'A::run',
      );
      dispatcher.addListener(
        'kernel.request',
        (e: RequestEvent) => {
          calls.push('b');
          e.waitFor(new Promise((r) => setTimeout(r, 2)));
        },
        2,
        'B::run',
      );
      dispatcher.addListener(
        'kernel.request',
        (e: RequestEvent) => {
          calls.push('c');
          e.stopPropagation();
        },
        1,
        'C::run',
      );
      dispatcher.addListener('kernel.request', () => calls.push('never'), 0, 'Never::run');
      const dispatched = dispatcher.dispatch(event());
      await dispatched.settled;
      expect(calls).toEqual(['a', 'b', 'c']);
      expect(dispatched.isPropagationStopped()).toBe(true);
    });

    it("rejects settled with the task's error and calls no later listener", async () => {
      const { dispatcher, event, context } = setup();
      const calls: string[] = [];
      dispatcher.addListener(
        'kernel.request',
        (e: RequestEvent) => {
          e.waitFor(Promise.reject(new Error('session store down')));
        },
        1,
        'Loader::run',
      );
      dispatcher.addListener('kernel.request', () => calls.push('never'), 0, 'Never::run');
      const dispatched = dispatcher.dispatch(event());
      await expect(dispatched.settled).rejects.toThrow('session store down');
      expect(calls).toEqual([]);
      expect(context.listenerCalls.map((c) => c.listener)).toEqual(['Loader::run']);
    });

    it('leaves settled undefined when no listener waits', () => {
      const { dispatcher, event } = setup();
      dispatcher.addListener('kernel.request', () => undefined, 0, 'Sync::run');
      expect(dispatcher.dispatch(event()).settled).toBeUndefined();
    });
  });
});

describe('KernelEventDispatcher with async listeners', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it('waits for a returned promise before the next listener, and settles the dispatch after the last', async () => {
    const { dispatcher, event } = setup();
    const calls: string[] = [];
    dispatcher.addListener(
      'kernel.request',
      async () => {
        await tick();
        calls.push('async');
      },
      10,
      'A::async',
    );
    dispatcher.addListener('kernel.request', () => calls.push('after'), 0, 'B::after');
    const dispatched = dispatcher.dispatch(event());
    expect(calls).toEqual([]);
    await dispatched.settled;
    expect(calls).toEqual(['async', 'after']);
  });

  it("ends the dispatch on a rejection, as a throw would, and rejects `settled` with the listener's error", async () => {
    const { dispatcher, event } = setup();
    const calls: string[] = [];
    const failure = new Error('after the await');
    dispatcher.addListener(
      'kernel.request',
      async () => {
        await tick();
        throw failure;
      },
      10,
      'A::async',
    );
    dispatcher.addListener('kernel.request', () => calls.push('after'), 0, 'B::after');
    await expect(dispatcher.dispatch(event()).settled).rejects.toBe(failure);
    expect(calls).toEqual([]);
  });

  it('refuses an async listener of an event that cannot wait when it is added, naming it', () => {
    const { dispatcher } = setup();
    for (const name of ['kernel.exception', 'kernel.finish_request']) {
      expect(() => dispatcher.addListener(name, async () => undefined, 0, 'Mine::onIt')).toThrow(
        `The kernel listener Mine::onIt is async, but ${name} cannot wait for a task: make it synchronous, or listen to an event that can wait (kernel.request, kernel.controller, kernel.controller_arguments, kernel.response, kernel.terminate).`,
      );
    }
  });

  it('fails the dispatch when a plain function returns a promise on an event that cannot wait, leaving nothing unhandled', async () => {
    const { dispatcher, context } = setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      dispatcher.addListener('kernel.finish_request', () => Promise.reject(new Error('late')), 0, 'Mine::promising');
      expect(() => dispatcher.dispatch(new FinishRequestEvent(context.request))).toThrow(
        'The kernel listener Mine::promising returned a promise, but kernel.finish_request cannot wait for a task.',
      );
      await tick();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
