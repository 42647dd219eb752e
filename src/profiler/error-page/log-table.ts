import type hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NOTIFIED } from '../../lifecycle/traceable-event-dispatcher.js';
import type { LogEntry } from '../../lifecycle/logging/log-entry.js';
import { LOG_LEVEL_NAMES, type LogLevel } from '../../lifecycle/logging/log-level.js';
import { toJsonSafe } from '../collectors/json-safe.js';
import { escapeText, logMessageHtml } from '../collectors/log-message-html.js';
import { logSections } from '../collectors/log-sections.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import type { EditorLinks } from '../editor/editor-links.js';

type Handlebars = ReturnType<typeof hbs.create>['handlebars'];
type Template = (context: object) => string;

const MAX_CONTEXT_CHARS = 4000;
const SHORT_CONTEXT_CHARS = 100;
/** Masked templates kept; a log whose templates are request data (not constants) starts the memory again. */
const TEMPLATES_KEPT = 500;

/** A row as views/error/partials/log-row.hbs shows it (the template escapes every field). */
interface LogRow {
  level: string;
  levelClass: string;
  channel: string;
  /** HTML: escaped, the place it names a link. */
  message: string;
  time: string;
  /** HTML: the context's JSON, escaped. */
  context: string;
  /** The context fits one short line (a notification's {event, listener}): shown as is, not folded. */
  short: boolean;
}

/** A row of a shared-context entry, kept with that context: reused while the time it shows stays the same. */
interface KnownRow {
  row: LogRow;
  html: string;
}

const LEVEL_CLASSES: Partial<Record<LogLevel, string>> = Object.fromEntries(
  Object.entries(LOG_LEVEL_NAMES).map(([level, name]) => [level, name.toLowerCase()]),
);

/**
 * The error page's Logs table body: one row per entry (views/error/partials/log-row.hbs) and, in a huge log, the
 * "entries omitted" row (log-omitted.hbs), joined here: a Handlebars `#each` builds an options object and a frame
 * for every row. Most rows are the kernel's `Notified event` entries, which share one frozen context per listener,
 * so their text and HTML are worked out once per listener and reused while the row's time (HH:MM:SS) is the same.
 * Secrets are masked in the message as in the context, with the profiler's rules.
 */
export class LogTable {
  private readonly row: Template;
  private readonly omittedRow: Template;
  private readonly known = new WeakMap<object, KnownRow>();
  /** Templates masked (a message's template is a constant of the code that logs it: a few dozen in all). */
  private readonly maskedTemplates = new Map<string, string>();

  constructor(
    handlebars: Handlebars,
    partialsDir: string,
    private readonly links: EditorLinks,
  ) {
    this.row = handlebars.compile(readFileSync(join(partialsDir, 'log-row.hbs'), 'utf8'));
    this.omittedRow = handlebars.compile(readFileSync(join(partialsDir, 'log-omitted.hbs'), 'utf8'));
  }

  /**
   * The rows of `entries`, with the omitted row before entry `omittedAt` (-1: none). `visible` are the request
   * path's segments, which a context may show although they look like secrets (see toJsonSafe).
   */
  render(entries: readonly LogEntry[], visible: ReadonlySet<string>, omittedAt: number, omitted: number): string {
    const clock = new ClockFormat();
    const groups = groupStarts(entries);
    let html = '';
    for (let i = 0; i < entries.length; i++) {
      if (i === omittedAt) html += this.omittedRow({ omitted });
      const group = groups.get(i);
      if (group !== undefined)
        html += `<tr class="level-row-debug log-group"><td colspan="3">${escapeText(group)}</td></tr>\n`;
      html += this.rowHtml(entries[i], clock.format(entries[i].timestamp), visible);
    }
    return html;
  }

  private rowHtml(entry: LogEntry, time: string, visible: ReadonlySet<string>): string {
    const shared = entry.template === NOTIFIED && Object.isFrozen(entry.context) ? entry.context : undefined;
    const known = shared ? this.known.get(shared) : undefined;
    const level = entry.levelName;
    if (known && known.row.time === time && known.row.level === level && known.row.channel === entry.channel)
      return known.html;
    const text = known?.row ?? this.text(entry, visible);
    const row: LogRow = {
      level,
      levelClass: LEVEL_CLASSES[entry.level] ?? level.toLowerCase(),
      channel: entry.channel,
      message: text.message,
      time,
      context: text.context,
      short: text.short,
    };
    const html = this.row(row);
    if (shared) this.known.set(shared, { row, html });
    return html;
  }

  private masked(template: string): string {
    let masked = this.maskedTemplates.get(template);
    if (masked === undefined) {
      masked = Redactor.text(template);
      if (this.maskedTemplates.size >= TEMPLATES_KEPT) this.maskedTemplates.clear();
      this.maskedTemplates.set(template, masked);
    }
    return masked;
  }

  private text(entry: LogEntry, visible: ReadonlySet<string>): Pick<LogRow, 'message' | 'context' | 'short'> {
    const context = toJsonSafe(entry.context, { maxDepth: 6, maxBreadth: 50, visible }) as Record<string, unknown>;
    const message = logMessageHtml(this.masked(entry.template), context, {
      compact: true,
      link: (file, line) => this.links.href(file, line),
    });
    const json = contextJson(context);
    return { message, context: escapeText(json), short: !json.includes('\n') };
  }
}

/** `HH:MM:SS` (UTC) of a log entry; most entries of a request share their second, so the last one is kept. */
class ClockFormat {
  private second = Number.NaN;
  private text = '';

  format(timestamp: number): string {
    const second = Math.floor(timestamp / 1000);
    if (second !== this.second) {
      this.second = second;
      this.text = new Date(timestamp).toISOString().slice(11, 19);
    }
    return this.text;
  }
}

/** The context as one line when that line is short (as Symfony prints it), else indented. */
function contextJson(context: Record<string, unknown>): string {
  if (Object.keys(context).length === 0) return '';
  const line = JSON.stringify(context);
  if (line.length <= SHORT_CONTEXT_CHARS) return line;
  const json = JSON.stringify(context, null, 2);
  return json.length > MAX_CONTEXT_CHARS ? `${json.slice(0, MAX_CONTEXT_CHARS)}\n… (truncated)` : json;
}

/**
 * Where each run of debug entries during one kernel event starts, with its label ("kernel.request: 6 event
 * notifications"): the rows the page shows with its debug switch, grouped as the Logs panel folds them.
 */
function groupStarts(entries: readonly LogEntry[]): Map<number, string> {
  const starts = new Map<number, string>();
  let index = 0;
  for (const section of logSections(
    entries.map((e) => ({
      level: e.level,
      channel: e.channel,
      message: e.template,
      context: e.context,
      during: e.during,
    })),
  )) {
    if (section.folded) starts.set(index, section.label);
    index += section.entries.length;
  }
  return starts;
}
