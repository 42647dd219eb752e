/** The running totals' time unit in both stores: an hour of milliseconds. */
export const HOUR = 3_600_000;

/**
 * A time range (milliseconds, both ends inclusive) as the hourly totals count it: the whole hours it covers (null:
 * none), and the parts at its ends that only some of an hour covers, to be counted row by row.
 */
export function splitByHours(
  from: number,
  to: number,
): { hours: [number, number] | null; partial: [number, number][] } {
  const firstHour = Math.ceil(from / HOUR);
  const lastHour = Math.floor((to + 1) / HOUR) - 1;
  const whole = firstHour <= lastHour;
  const ends: [number, number][] = whole
    ? [
        [from, firstHour * HOUR - 1],
        [(lastHour + 1) * HOUR, to],
      ]
    : [[from, to]];
  return { hours: whole ? [firstHour, lastHour] : null, partial: ends.filter(([a, b]) => a <= b) };
}
