import { parseFormTime } from './search-query.dto.js';
import { formTime, listTime, profiledOn } from '../views/profile-time.js';

describe('search form times', () => {
  it('reads a bare date as its first or last millisecond, local time', () => {
    expect(parseFormTime('2026-11-21', 'start')).toBe(new Date(2026, 10, 21, 0, 0, 0, 0).getTime());
    expect(parseFormTime('2026-11-21', 'end')).toBe(new Date(2026, 10, 21, 23, 59, 59, 999).getTime());
  });

  it('reads datetime-local values with and without seconds, and Unix times', () => {
    expect(parseFormTime('2026-11-21T22:34', 'start')).toBe(new Date(2026, 10, 21, 22, 34, 0, 0).getTime());
    expect(parseFormTime('2026-11-21T22:34', 'end')).toBe(new Date(2026, 10, 21, 22, 34, 59, 999).getTime());
    expect(parseFormTime('2026-11-21T22:34:35', 'start')).toBe(new Date(2026, 10, 21, 22, 34, 35, 0).getTime());
    expect(parseFormTime('1763764475', 'start')).toBe(1763764475000);
    expect(parseFormTime(undefined, 'start')).toBeUndefined();
    expect(parseFormTime('', 'end')).toBeUndefined();
  });

  it('refuses dates that do not exist', () => {
    expect(parseFormTime('2026-02-31', 'start')).toBeNaN();
    expect(parseFormTime('2026-13-01', 'start')).toBeNaN();
    expect(parseFormTime('2026-11-21T24:00', 'start')).toBeNaN();
  });

  it('formats list, summary and form times', () => {
    const t = new Date(2026, 10, 21, 7, 4, 5).getTime();
    expect(listTime(t)).toBe('21-Nov-2026 07:04:05');
    expect(profiledOn(t)).toMatch(/^Sat, 21 Nov 2026 07:04:05 [+-]\d{4}$/);
    expect(formTime(t)).toBe('2026-11-21T07:04:05');
    expect(parseFormTime(formTime(t), 'start')).toBe(t);
  });
});
