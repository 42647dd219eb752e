import { highlighter } from '../views/highlighter.js';
import type { ExcerptLine } from './source-resolver.js';

/** An excerpt's line as HTML: its text escaped, with highlight.js's `hljs-*` spans. */
export interface HighlightedLine {
  number: number;
  current: boolean;
  html: string;
}

const LANGUAGES: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
};
const MAX_CACHED = 500;
const cache = new Map<string, HighlightedLine[]>();

/**
 * Syntax-highlights a code excerpt on the server (highlight.js), line by line as the page numbers them: the lines are
 * highlighted together, so that a string or comment spanning lines keeps its colour, then split with the spans open
 * at each line end closed there and opened again on the next line. Kept per file and range: an error page shows
 * the same excerpts again and again.
 */
export function highlightExcerpt(file: string, lines: readonly ExcerptLine[]): HighlightedLine[] {
  const key = `${file}\u0000${lines[0]?.number ?? 0}\u0000${lines.length}`;
  const known = cache.get(key);
  if (known) return known;
  const language = LANGUAGES[file.slice(file.lastIndexOf('.') + 1).toLowerCase()];
  const source = lines.map((l) => l.text).join('\n');
  const html = language ? highlighter.highlight(source, { language, ignoreIllegals: true }).value : escapeHtml(source);
  const highlighted = splitLines(shortClasses(html)).map((line, i) => ({
    number: lines[i].number,
    current: lines[i].current,
    html: line,
  }));
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, highlighted);
  return highlighted;
}

/**
 * highlight.js's spans (`<span class="hljs-title function_">`, some forty bytes for each token) as the short
 * elements the error page's stylesheet colours (`<i class="f">`, within `.excerpt`): an error page must stay small.
 * A token of a kind the stylesheet does not colour loses its span.
 */
const SHORT: Record<string, string> = {
  'hljs-keyword': 'k',
  'hljs-string': 's',
  'hljs-comment': 'c',
  'hljs-title function_': 'f',
  'hljs-title class_': 't',
  'hljs-title': 't',
  'hljs-number': 'n',
  'hljs-literal': 'n',
  'hljs-attr': 'p',
  'hljs-property': 'p',
  'hljs-variable language_': 'k',
  'hljs-built_in': 'b',
  'hljs-type': 'b',
  'hljs-params': 'b',
  'hljs-regexp': 'r',
  'hljs-meta': 'c',
};

export function shortClasses(html: string): string {
  const open: boolean[] = [];
  return html.replace(/<span class="([^"]*)">|<\/span>/g, (tag, name: string | undefined) => {
    if (name === undefined) return open.pop() ? '</i>' : '';
    const short = SHORT[name];
    open.push(short !== undefined);
    return short === undefined ? '' : `<i class="${short}">`;
  });
}

/** The short elements' HTML cut at its newlines, each line's elements balanced. */
export function splitLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  for (const token of html.split(/(<i[^>]*>|<\/i>|\n)/)) {
    if (token === '\n') {
      lines.push(line + '</i>'.repeat(open.length));
      line = open.join('');
    } else if (token.startsWith('<i')) {
      open.push(token);
      line += token;
    } else if (token === '</i>') {
      open.pop();
      line += token;
    } else line += token;
  }
  lines.push(line);
  return lines;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
