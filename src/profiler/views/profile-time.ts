const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const pad = (n: number): string => String(n).padStart(2, '0');

/** The search list's time: `21-Nov-2026 22:34:35`, server time (or UTC). */
export function listTime(ms: number, utc = false): string {
  const d = new Date(ms);
  const [day, month, year, hours, minutes, seconds] = utc
    ? [d.getUTCDate(), d.getUTCMonth(), d.getUTCFullYear(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]
    : [d.getDate(), d.getMonth(), d.getFullYear(), d.getHours(), d.getMinutes(), d.getSeconds()];
  return `${pad(day)}-${MONTHS[month]}-${year} ${pad(hours)}:${pad(minutes)}:${pad(seconds)}`;
}

/** The profile summary's time: `Sat, 21 Nov 2026 22:34:32 +0000`, server time. */
export function profiledOn(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${DAYS[d.getDay()]}, ${pad(d.getDate())} ${MONTHS[d.getMonth()]} ${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`;
}

/** A value for `<input type="datetime-local" step="1">`: `2026-11-21T22:34:35`. */
export function formTime(ms: number | undefined): string {
  if (ms === undefined) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
