import { configure } from 'safe-stable-stringify';
import { MASK, Redactor } from '../redaction/redactor.js';
import { interpolate, placeholderText, type LogEntry } from './log-entry.js';
import { LOG_LEVEL_NAMES } from './log-level.js';

// Key order is meaningful in log contexts (Symfony's is kept): no sorting.
const stringify = configure({ deterministic: false, circularValue: '[circular]' });

/**
 * What could end, hide or rewrite a line on a terminal or in a log file: C0 controls (newlines, tabs, escape
 * sequences, NUL), DEL, C1 controls (NEL), the Unicode line and paragraph separators, and bidirectional overrides.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same less C0, which JSON has escaped already (in keys too); the rest can only be inside JSON strings. */
const CONTROL_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/**
 * One log entry as one printed Monolog-style line: `[time] channel.LEVEL: message {context}`. Everything printed
 * passes the profiler's redaction (the message's text, context values by key, nested values, exception messages),
 * and control characters are escaped the way JSON escapes them, so that request data cannot break or forge a line.
 * Only entries that are printed are formatted.
 */
export class LineFormatter {
  format(entry: LogEntry): string {
    const message = escapeControl(Redactor.text(interpolate(entry.template, entry.context, redactedPlaceholder)));
    // Monolog's line, without its `[]` for an empty context (Nest's start-up lines have none): noise in a terminal.
    const context =
      Object.keys(entry.context).length === 0 ? '' : ` ${escapeControlInJson(redactedJson(entry.context))}`;
    return `[${new Date(entry.timestamp).toISOString()}] ${escapeControl(entry.channel)}.${LOG_LEVEL_NAMES[entry.level]}: ${message}${context}\n`;
  }
}

function redactedJson(value: unknown): string {
  return stringify(value, redact) ?? 'null';
}

/** safe-stable-stringify's replacer: values under secret-looking keys masked, strings masked, errors by class and message. */
function redact(this: unknown, key: string, value: unknown): unknown {
  if (value === null || value === undefined || value === '') return value;
  if (key !== '' && !Array.isArray(this) && Redactor.isSecretField(key)) return MASK;
  if (typeof value === 'string') return Redactor.text(value);
  if (value instanceof Error) return { class: value.constructor.name, message: value.message };
  return value;
}

function redactedPlaceholder(key: string, value: unknown): string {
  if (value !== null && value !== undefined && value !== '' && Redactor.isSecretField(key)) return MASK;
  const plainObject =
    typeof value === 'object' && value !== null && !(value instanceof Error) && !(value instanceof Date);
  return plainObject ? redactedJson(value) : placeholderText(key, value);
}

/** Text printed outside a log entry (a process warning): redacted, and kept on one line. */
export function printableText(text: string): string {
  return escapeControl(Redactor.text(text));
}

function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => SHORT_ESCAPES[c] ?? unicodeEscape(c));
}

function escapeControlInJson(json: string): string {
  return json.replace(CONTROL_IN_JSON, unicodeEscape);
}

function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
