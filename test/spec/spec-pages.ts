import { HTMLElement, parse } from 'node-html-parser';
import type { TestAppOptions } from '../support/create-test-app.js';

/**
 * What the conformance suite shares: the app as SPEC.md describes it (debug mode, reached over https through a
 * local proxy under host names of its own) and readers of its pages that see what a reader of the page sees.
 */
export const HOST = 'shop.test';

/** Debug tools for shop.test and its subdomains; X-Forwarded-Proto believed from the local proxy (https URLs). */
export const SPEC_APP: TestAppOptions = { env: { PROFILER_ALLOWED_HOSTS: `.${HOST}`, TRUSTED_PROXIES: 'loopback' } };

export const TOKEN = /^[0-9a-f]{6}$/;

/** An element's text as shown: entities decoded, white space collapsed. */
export const text = (el: HTMLElement | null | undefined): string => (el?.text ?? '').replace(/\s+/g, ' ').trim();

export const html = (body: string): HTMLElement => parse(body);

/** One entry of a Logs table (debug error page or Logs panel), read cell by cell. */
export interface LogRow {
  level: string;
  time: string;
  channel: string;
  /** The message as shown, without its context. */
  message: string;
  /** The JSON shown below the message, parsed (undefined when no context is shown). */
  context: unknown;
}

/** The entries of every Logs table of a page, in order (the rows that only head a fold are left out). */
export function logRows(page: HTMLElement): LogRow[] {
  return page
    .querySelectorAll('table.logs tbody tr')
    .filter((tr) => tr.querySelectorAll('td').length === 3)
    .map((tr) => {
      const [levelCell, channelCell, messageCell] = tr.querySelectorAll('td');
      const shownBelow = (node: unknown) =>
        node instanceof HTMLElement && ['details', 'pre'].includes(node.tagName.toLowerCase());
      const context = messageCell.querySelector('pre');
      return {
        level: text(levelCell.querySelector('.level')),
        time: text(levelCell.querySelector('time')),
        channel: text(channelCell),
        message: messageCell.childNodes
          .filter((node) => !shownBelow(node))
          .map((node) => node.text)
          .join('')
          .replace(/\s+/g, ' ')
          .trim(),
        context: context ? JSON.parse(context.text) : undefined,
      };
    });
}

/** The header cells of a page's first Logs table. */
export function logColumns(page: HTMLElement): string[] {
  return page.querySelectorAll('table.logs')[0]?.querySelectorAll('thead th').map(text) ?? [];
}

/** The `Notified event "<event>" to listener "<listener>".` entries, as [event, listener]. */
export function notifications(rows: LogRow[]): Array<[string, string]> {
  return rows.flatMap((row) => {
    const m = /^Notified event "([^"]+)" to listener "([^"]+)"\.$/.exec(row.message);
    return m ? [[m[1], m[2]] as [string, string]] : [];
  });
}

/** Events in the order they were first notified. */
export function eventOrder(rows: LogRow[]): string[] {
  return [...new Set(notifications(rows).map(([event]) => event))];
}

/** The boxes of the exception entries of an error page or Exception panel, in the order shown. */
export function exceptionBoxes(page: HTMLElement): HTMLElement[] {
  return page.querySelectorAll('.trace').filter((box) => box.querySelector('.trace-head'));
}

/** The exception entries of an error page or Exception panel, outermost first as shown. */
export function exceptionEntries(page: HTMLElement): Array<{ label: string; class: string; message: string }> {
  return exceptionBoxes(page).map((box) => ({
    label: text(box.querySelector('.label')),
    class: text(box.querySelector('.class')),
    message: text(box.querySelector('.message')),
  }));
}

/** A heading's text (h2 whose text starts with `name`), e.g. `Exceptions 2`. */
export function heading(page: HTMLElement, name: string): string | undefined {
  return page
    .querySelectorAll('h2')
    .map(text)
    .find((h) => h === name || h.startsWith(`${name} `));
}

/** The first line of each plain-text stack trace. */
export function stackTraceHeads(page: HTMLElement): string[] {
  return page.querySelectorAll('pre.stack').map((pre) => pre.text.split('\n')[0]);
}
