import { isIP } from 'node:net';

/**
 * Whether a Host may see the debug tools: loopback names (`localhost`, `*.localhost`), IP addresses (the loopback
 * ones and the address the server listens on among them) and the names listed in PROFILER_ALLOWED_HOSTS (exact,
 * `.example.com` for it and its subdomains, `*` for any). DNS rebinding needs a host name the attacker controls
 * that resolves to the developer's machine: a page of such a name reads same-origin answers, so it must get none of
 * the debug tools (the rule Vite's `server.allowedHosts` and webpack-dev-server's `allowedHosts` apply). An IP
 * address in Host is the address itself, which no rebinding can borrow.
 */
export function debugHostRule(allowedHosts: readonly string[]): (host: string) => boolean {
  if (allowedHosts.includes('*')) return () => true;
  const exact = new Set(allowedHosts.filter((h) => !h.startsWith('.')).map(canonicalName));
  const suffixes = allowedHosts.filter((h) => h.startsWith('.')).map((h) => canonicalName(h.slice(1)));
  return (host) => {
    const name = hostName(host);
    if (name === '') return false;
    if (name === 'localhost' || name.endsWith('.localhost')) return true;
    if (isIP(name) !== 0) return true;
    if (exact.has(name)) return true;
    return suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
  };
}

/** `Example.COM.:3000` → `example.com`; `[::1]:3000` → `::1`. */
export function hostName(host: string): string {
  let name = host.trim();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    return end === -1 ? '' : name.slice(1, end).toLowerCase();
  }
  const colon = name.lastIndexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  return canonicalName(name);
}

function canonicalName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
