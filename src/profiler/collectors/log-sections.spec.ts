import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { logSections } from './log-sections.js';

const notified = (event: string, listener = 'L::on') => ({
  level: LogLevel.DEBUG,
  channel: 'event',
  message: NOTIFIED,
  context: { event, listener },
});
const entry = (level: LogLevel, message: string) => ({ level, channel: 'app', message, context: {} });

describe('logSections', () => {
  it('folds each run of debug entries under its kernel event and keeps every other entry in the open, in order', () => {
    const log = [
      entry(LogLevel.DEBUG, 'early'),
      notified('kernel.request'),
      notified('kernel.request'),
      entry(LogLevel.INFO, 'Matched route'),
      notified('kernel.request'),
      notified('kernel.controller'),
      entry(LogLevel.DEBUG, 'Query'),
      entry(LogLevel.ERROR, 'Payment failed'),
      entry(LogLevel.WARNING, 'Stock low'),
      notified('kernel.response'),
    ];
    const sections = logSections(log);
    expect(
      sections.map((s) => (s.folded ? `folded ${s.label}` : `open ${s.entries.map((e) => e.message).join(', ')}`)),
    ).toEqual([
      'folded Before the kernel events: 1 debug entry',
      'folded kernel.request: 2 event notifications',
      'open Matched route',
      'folded kernel.request: 1 event notification',
      'folded kernel.controller: 1 event notification, 1 other debug entry',
      'open Payment failed, Stock low',
      'folded kernel.response: 1 event notification',
    ]);
    expect(sections.flatMap((s) => s.entries)).toEqual(log);
  });

  it('returns no section for an empty log and one open section when nothing is debug', () => {
    expect(logSections([])).toEqual([]);
    expect(logSections([entry(LogLevel.INFO, 'a'), entry(LogLevel.NOTICE, 'b')])).toEqual([
      { folded: false, entries: [entry(LogLevel.INFO, 'a'), entry(LogLevel.NOTICE, 'b')] },
    ]);
  });
});
