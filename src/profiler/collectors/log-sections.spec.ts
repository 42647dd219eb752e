import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { logSections, logStages } from './log-sections.js';

const notified = (event: string, listener = 'L::on') => ({
  level: LogLevel.DEBUG,
  channel: 'event',
  message: NOTIFIED,
  context: { event, listener },
});
const entry = (level: LogLevel, message: string) => ({ level, channel: 'app', message, context: {} });

describe('logSections', () => {
  const during = (event: string, message: string, level = LogLevel.DEBUG) => ({
    ...entry(level, message),
    during: event,
  });
  const summary = (log: ReturnType<typeof entry>[]) =>
    logSections(log).map((s) =>
      s.folded ? `folded ${s.label}` : `open ${s.entries.map((e) => e.message).join(', ')}`,
    );

  it('folds the debug entries of each stage, listeners with their event, and keeps every other entry in the open, in order', () => {
    // As the traced dispatcher writes them: what a listener logs, then the event's notifications after the dispatch.
    const log = [
      entry(LogLevel.DEBUG, 'early'),
      during('kernel.request', 'Session read'),
      during('kernel.request', 'Matched route', LogLevel.INFO),
      during('kernel.request', 'User loaded'),
      notified('kernel.request'),
      notified('kernel.request'),
      notified('kernel.controller'),
      notified('kernel.controller_arguments'),
      entry(LogLevel.DEBUG, 'Query'),
      entry(LogLevel.DEBUG, 'Query'),
      entry(LogLevel.ERROR, 'Payment failed'),
      entry(LogLevel.WARNING, 'Stock low'),
      during('kernel.response', 'Session written'),
      notified('kernel.response'),
      entry(LogLevel.DEBUG, 'late'),
    ];
    expect(summary(log)).toEqual([
      'folded Before the kernel events: 1 debug entry',
      'folded kernel.request: 1 debug entry',
      'open Matched route',
      'folded kernel.request: 2 event notifications, 1 other debug entry',
      'folded kernel.controller: 1 event notification',
      'folded kernel.controller_arguments: 1 event notification',
      'folded In the controller: 2 debug entries',
      'open Payment failed, Stock low',
      'folded kernel.response: 1 event notification, 1 other debug entry',
      'folded After kernel.response: 1 debug entry',
    ]);
    expect(logSections(log).flatMap((s) => s.entries)).toEqual(log);
  });

  it('names an unmarked entry (a profile stored before the mark) after the last event notified', () => {
    expect(
      summary([
        entry(LogLevel.DEBUG, 'a'),
        notified('kernel.request'),
        entry(LogLevel.DEBUG, 'b'),
        notified('kernel.controller_arguments'),
        entry(LogLevel.DEBUG, 'c'),
      ]),
    ).toEqual([
      'folded Before the kernel events: 1 debug entry',
      'folded kernel.request: 1 event notification',
      'folded After kernel.request: 1 debug entry',
      'folded kernel.controller_arguments: 1 event notification',
      'folded In the controller: 1 debug entry',
    ]);
  });

  it("names a filtered view's entries by the stages of the whole log (a channel filter leaves out the notifications)", () => {
    const log = [
      during('kernel.request', 'q1'),
      notified('kernel.request'),
      notified('kernel.controller_arguments'),
      entry(LogLevel.DEBUG, 'q2'),
      during('kernel.response', 'q3'),
      notified('kernel.response'),
    ];
    const stages = logStages(log);
    expect(stages).toEqual([
      'kernel.request',
      'kernel.request',
      'kernel.controller_arguments',
      'controller',
      'kernel.response',
      'kernel.response',
    ]);
    const queries = [0, 3, 4];
    const sections = logSections(
      queries.map((i) => log[i]),
      queries.map((i) => stages[i]),
    );
    expect(sections.map((s) => s.folded && s.label)).toEqual([
      'kernel.request: 1 debug entry',
      'In the controller: 1 debug entry',
      'kernel.response: 1 debug entry',
    ]);
  });

  it('returns no section for an empty log and one open section when nothing is debug', () => {
    expect(logSections([])).toEqual([]);
    expect(logSections([entry(LogLevel.INFO, 'a'), entry(LogLevel.NOTICE, 'b')])).toEqual([
      { folded: false, entries: [entry(LogLevel.INFO, 'a'), entry(LogLevel.NOTICE, 'b')] },
    ]);
  });
});
