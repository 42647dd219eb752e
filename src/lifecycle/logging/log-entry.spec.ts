import { interpolate, LogEntry } from './log-entry.js';
import { LogLevel } from './log-level.js';

describe('LogEntry', () => {
  it('interpolates PSR-3 placeholders when read, leaving unknown ones', () => {
    const entry = new LogEntry(
      LogLevel.INFO,
      'request',
      'Matched route "{route}" for {who}.',
      { route: 'shop_home' },
      0,
    );
    expect(entry.message).toBe('Matched route "shop_home" for {who}.');
    expect(entry.levelName).toBe('INFO');
  });

  it('renders objects as JSON and errors by class', () => {
    expect(interpolate('{a} {b} {c}', { a: { x: 1 }, b: new TypeError('x'), c: null })).toBe(
      '{"x":1} [object TypeError] null',
    );
  });
});
