import escapeHtml from 'escape-html';
import { PLACEHOLDER, placeholderText } from '../../lifecycle/logging/log-entry.js';

/**
 * A log message as HTML, its placeholders interpolated like `interpolate` does, each value in a `<mark>` naming
 * its placeholder: the reader sees which part of the line came from the context. Everything is escaped here, so the
 * template may print it raw.
 */
export function logMessageHtml(template: string, context: Record<string, unknown>): string {
  let html = '';
  let from = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const [whole, key] = match;
    if (!(key in context)) continue;
    html += escapeHtml(template.slice(from, match.index)) + `<mark class="placeholder" title="${escapeHtml(whole)}">${escapeHtml(placeholderText(key, context[key]))}</mark>`;
    from = match.index + whole.length;
  }
  return html + escapeHtml(template.slice(from));
}
