import { isIPv6 } from 'node:net';

/**
 * The client as login throttling counts it: an IPv4 address as it is; an IPv6 address by its /64 network, the
 * block one subscriber (one home, one server) gets, within which anyone can pick a new address per request.
 */
export function throttledClient(ip: string): string {
  const address = ip.split('%')[0];
  if (!isIPv6(address)) return ip === '' ? 'unknown' : ip;
  const groups = hextets(address);
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** The eight groups of an IPv6 address (`::` expanded; an embedded IPv4 address counts as the last two). */
function hextets(address: string): string[] {
  const split = (part: string) =>
    (part === '' ? [] : part.split(':')).flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const gap = address.indexOf('::');
  if (gap === -1) return split(address);
  const head = split(address.slice(0, gap));
  const tail = split(address.slice(gap + 2));
  return [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
}
