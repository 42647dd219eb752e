/** URL skeletons: how both profile stores count the profiles of a URL substring from a few thousand totals. */

/**
 * A URL's skeleton: each run of ASCII digits after the scheme, host and port (from the first '/' after '//')
 * replaced by one '#'. A needle with neither digits nor '#' occurs in a URL exactly when it occurs in its
 * skeleton: an occurrence holds no digit, so no run is inside it, and its characters are the URL's (LIKE folds
 * ASCII letters only, never into digits or '#'). The host part is kept as it is, so that a port or an address
 * (`:3000`, `127.0.0.1`) is found in the skeletons too.
 */
export function urlSkeleton(url: string): string {
  const authority = url.indexOf('//');
  const path = authority < 0 ? 0 : url.indexOf('/', authority + 2);
  if (path < 0) return url;
  return url.slice(0, path) + url.slice(path).replace(/[0-9]+/g, '#');
}

/**
 * Which URLs of a skeleton contain a needle (with digits, without '#'), as LIKE '%needle%' matches (ASCII letters
 * folded): 'all' when the skeleton contains the needle itself (an occurrence without '#' is in every URL of the
 * skeleton); 'some' when the needle fits once each '#' is read as any digits (each run of digits of the needle
 * lies on the same digits or on a '#'); 'none' otherwise, since every URL's occurrence would give such a fit.
 */
export class SkeletonMatcher {
  private readonly folded: string;
  private readonly fit: RegExp;

  constructor(needle: string) {
    this.folded = foldAscii(needle);
    const parts = this.folded.split(/([0-9]+)/);
    this.fit = new RegExp(
      parts.map((part, i) => (i % 2 === 1 ? `(?:${part}|#)` : part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join(''),
    );
  }

  match(skeleton: string): 'all' | 'some' | 'none' {
    const folded = foldAscii(skeleton);
    if (folded.includes(this.folded)) return 'all';
    return this.fit.test(folded) ? 'some' : 'none';
  }
}

/** ASCII letters in lower case, others unchanged: the case folding of SQLite's LIKE. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}
