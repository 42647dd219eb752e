import { remembered } from './remembered.js';

describe('remembered', () => {
  it('judges a key once, then answers from the map', () => {
    const verdicts = new Map<string, boolean>();
    const judged: string[] = [];
    const judge = (key: string) => {
      judged.push(key);
      return key.startsWith('x');
    };
    expect([
      remembered(verdicts, 'xa', judge, 10),
      remembered(verdicts, 'b', judge, 10),
      remembered(verdicts, 'xa', judge, 10),
    ]).toEqual([true, false, true]);
    expect(judged).toEqual(['xa', 'b']);
  });

  it('keeps at most `bound` verdicts, still answering right past them', () => {
    const verdicts = new Map<number, boolean>();
    for (let i = 0; i < 100; i++) expect(remembered(verdicts, i, (n) => n % 2 === 0, 8)).toBe(i % 2 === 0);
    expect(verdicts.size).toBeLessThanOrEqual(8);
  });
});
