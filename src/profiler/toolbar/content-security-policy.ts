/**
 * Adds a nonce source to the script-src and style-src directives of a Content-Security-Policy value (creating each
 * from default-src when the policy has none), so that the toolbar's script and stylesheet load under the page's own
 * policy and nothing else does. A directive that allows 'unsafe-inline' without any nonce or hash is left as it is:
 * a nonce would make browsers ignore 'unsafe-inline', and the page's own inline code would stop running.
 */
export function withToolbarNonce(policy: string, nonce: string): string {
  const directives = policy
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean);
  const defaults = directives.find((d) => /^default-src(\s|$)/i.test(d));
  for (const name of ['script-src', 'style-src']) {
    const at = directives.findIndex((d) => new RegExp(`^${name}(\\s|$)`, 'i').test(d));
    if (at !== -1 && reliesOnUnsafeInline(directives[at])) continue;
    if (at !== -1) directives[at] = withSource(directives[at], `'nonce-${nonce}'`);
    else
      directives.push(
        withSource(defaults ? defaults.replace(/^default-src/i, name) : `${name} 'self'`, `'nonce-${nonce}'`),
      );
  }
  return directives.join('; ');
}

/** A source added to a directive; `'none'` goes, since it cannot be combined. */
function withSource(directive: string, source: string): string {
  return `${directive.replace(/\s'none'/i, '')} ${source}`;
}

function reliesOnUnsafeInline(directive: string): boolean {
  return /\s'unsafe-inline'/i.test(directive) && !/\s'(nonce-|sha256-|sha384-|sha512-)/i.test(directive);
}
