/**
 * A Host field (RFC 9110 §7.2): a registered name (letters, digits, '-', '_', dot-separated labels, one trailing
 * dot) or an IP literal in brackets, then an optional port. Stricter than Symfony's Request::getHost(), which lets
 * `shop.test:-1` or `[::1` through, and the kernel builds absolute URLs from it. No nested quantifier can match the
 * same text two ways, so a long bad host fails in linear time instead of backtracking exponentially.
 */
const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?)(?::(\d{0,5}))?$/i;

/**
 * Whether `host` is a Host field the kernel believes: the one rule for a request's Host and for a recorded one
 * sent again (the profiler's replay). An empty port is allowed (RFC 3986).
 */
export function isValidHost(host: string): boolean {
  const match = HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65_535);
}
