import escapeHtml from 'escape-html';
import { PLACEHOLDER, placeholderText } from '../../lifecycle/logging/log-entry.js';

/** Where a file at a line leads (EditorLinks.href); null: nowhere. */
export type SourceLink = (file: string, line: number) => string | null;

export interface LogMessageOptions {
  link?: SourceLink;
  /**
   * The error page's form: bare `<mark>`s and only `&`, `<` and `>` escaped (the message is an element's text, where
   * quotes need no escaping); the page must stay small. Otherwise each mark names its placeholder in a title.
   */
  compact?: boolean;
}

/**
 * A log message as HTML, its placeholders interpolated like `interpolate` does, each value in a `<mark>`: the reader
 * sees which part of the line came from the context. A `{file}` whose context also has a numeric `line` (an uncaught
 * exception's) is a link to that place. Everything is escaped here, so the template may print it raw.
 */
export function logMessageHtml(
  template: string,
  context: Record<string, unknown>,
  options: LogMessageOptions = {},
): string {
  const escape = options.compact ? escapeText : escapeHtml;
  let html = '';
  let from = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const [whole, key] = match;
    if (!(key in context)) continue;
    const value = escape(placeholderText(key, context[key]));
    const mark = options.compact
      ? `<mark>${value}</mark>`
      : `<mark class="placeholder" title="${escapeHtml(whole)}">${value}</mark>`;
    const href =
      key === 'file' && typeof context.file === 'string' && typeof context.line === 'number'
        ? options.link?.(context.file, context.line)
        : null;
    html +=
      escape(template.slice(from, match.index)) +
      (href ? `<a class="file-link" href="${escapeHtml(href)}">${mark}</a>` : mark);
    from = match.index + whole.length;
  }
  return html + escape(template.slice(from));
}

/** Text for an element's content (a `<pre>`, a table cell): `&`, `<` and `>` escaped, quotes as they are. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
