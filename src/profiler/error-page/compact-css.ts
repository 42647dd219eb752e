/**
 * A stylesheet without its comments and spare white space: the error page carries its styles inline (it must work
 * without the profiler) and is kept small. Not a minifier: strings and urls with these characters are not expected.
 */
export function compactCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}:;,>])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();
}
