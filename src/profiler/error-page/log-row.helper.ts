import type hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Handlebars = ReturnType<typeof hbs.create>['handlebars'];

/** One row of the error page's Logs table, as DebugErrorRenderer prepares it. */
export interface LogRow {
  level: string;
  levelClass: string;
  channel: string;
  message: string;
  time: string;
  context: string;
  /**
   * The frozen context object the entry shares with every entry of the same kind (the kernel's `Notified event`
   * entries, one per listener): its row differs from one page to the next only by its time, so it is rendered once
   * per listener and second.
   */
  shared?: object;
}

/**
 * `{{log_row row}}`: a row of the Logs table (views/error/partials/log-row.hbs). Most rows of an error page are the
 * kernel's listener notifications (about thirty), and Handlebars took some 2 µs a row: those are kept per listener
 * with the time they show and reused while it stays the same.
 */
export function registerLogRowHelper(handlebars: Handlebars, partialsDir: string): void {
  const template = handlebars.compile(readFileSync(join(partialsDir, 'log-row.hbs'), 'utf8'));
  const rendered = new WeakMap<object, { row: LogRow; html: unknown }>();
  handlebars.registerHelper('log_row', (row: LogRow) => {
    const key = row.shared;
    const known = key ? rendered.get(key) : undefined;
    if (known && sameText(known.row, row)) return known.html;
    const html = new handlebars.SafeString(template(row));
    if (key) rendered.set(key, { row, html });
    return html;
  });
}

function sameText(a: LogRow, b: LogRow): boolean {
  return a.time === b.time && a.message === b.message && a.context === b.context && a.level === b.level && a.channel === b.channel && a.levelClass === b.levelClass;
}
