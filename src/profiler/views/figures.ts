/** Figures as the profiler's pages and answers write them. */
import { COUNT_CAP } from '../storage/search-helpers.js';

/**
 * A store's count of matches: exact up to COUNT_CAP, `10,000+` above (stores count no further), `1,234+` when the
 * store stopped counting before (`atLeast`: ProfileSearchResult).
 */
export function matchCount(count: number, atLeast = false): string {
  if (count > COUNT_CAP) return `${COUNT_CAP.toLocaleString('en')}+`;
  return `${count.toLocaleString('en')}${atLeast ? '+' : ''}`;
}

/** Milliseconds, as people read them: `12.3 ms`, `0.42 ms`, `1.25 s`. */
export function ms(value: number): string {
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)} ms`;
}

/** A signed difference in milliseconds: `+4.2 ms`, `-0.80 ms`. */
export function msDelta(value: number): string {
  return `${value >= 0 ? '+' : '-'}${ms(Math.abs(value))}`;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
