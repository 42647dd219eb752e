import { mebibytes, ms, msDelta } from '../views/figures.js';
import { fitting, oneLine, withinBudget } from './digest-text.js';

describe('digest text', () => {
  it('writes times and sizes as people read them', () => {
    expect([ms(0.4234), ms(12.345), ms(1250), msDelta(-0.8), msDelta(4.21), mebibytes(3 * 1024 * 1024)]).toEqual([
      '0.42 ms',
      '12.3 ms',
      '1.25 s',
      '-0.80 ms',
      '+4.21 ms',
      '3.0 MiB',
    ]);
  });

  it('puts text on one line, cut with an ellipsis', () => {
    expect(oneLine('select *\n  from   x', 100)).toBe('select * from x');
    expect(oneLine('abcdefghij', 5)).toBe('abcd\u2026');
  });

  it('keeps the lines that fit and says how many were left out', () => {
    expect(withinBudget(['aaaa', 'bbbb', 'cccc'], 10, (left) => `+${left}`)).toBe('aaaa\nbbbb\n+1');
    expect(withinBudget(['aa'], 10, () => 'never')).toBe('aa');
  });

  it('keeps the items whose lines fit, with their lines', () => {
    expect(fitting([1, 22, 333, 4444], (n) => `#${n}`, 9)).toEqual({ items: [1, 22], lines: ['#1', '#22'] });
    expect(fitting([], String, 9)).toEqual({ items: [], lines: [] });
  });
});
