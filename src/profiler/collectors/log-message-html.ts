import escapeHtml from 'escape-html';
import { PLACEHOLDER, placeholderText } from '../../lifecycle/logging/log-entry.js';

/** Where a file at a line leads (EditorLinks.href); null: nowhere. */
export type SourceLink = (file: string, line: number) => string | null;

/**
 * A log message as HTML, its placeholders interpolated like `interpolate` does, each value in a `<mark>` naming
 * its placeholder: the reader sees which part of the line came from the context. A `{file}` whose context also has
 * a numeric `line` (an uncaught exception's) is a link to that place. Everything is escaped here, so the template
 * may print it raw.
 */
export function logMessageHtml(template: string, context: Record<string, unknown>, link?: SourceLink): string {
  let html = '';
  let from = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const [whole, key] = match;
    if (!(key in context)) continue;
    const mark = `<mark class="placeholder" title="${escapeHtml(whole)}">${escapeHtml(placeholderText(key, context[key]))}</mark>`;
    const href = key === 'file' && typeof context.file === 'string' && typeof context.line === 'number' ? link?.(context.file, context.line) : null;
    html += escapeHtml(template.slice(from, match.index)) + (href ? `<a class="file-link" href="${escapeHtml(href)}">${mark}</a>` : mark);
    from = match.index + whole.length;
  }
  return html + escapeHtml(template.slice(from));
}
