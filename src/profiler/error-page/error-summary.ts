import { STATUS_CODES } from 'node:http';
import type { KernelRequest } from '../../lifecycle/http/kernel-request.js';
import { interpolate, type LogEntry } from '../../lifecycle/logging/log-entry.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { UNCAUGHT_EXCEPTION } from '../../lifecycle/listeners/error.listener.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';
import { toJsonSafe } from '../collectors/json-safe.js';
import type { FlattenedException } from './flattened-exception.js';
import { isFrameworkFrame } from './exception-frames.helper.js';

/** The request as the error page's summary shows it: secrets masked, as in the profile. */
export interface RequestSummary {
  method: string;
  url: string;
  route: string | null;
  controller: string | null;
  headers: { name: string; value: string }[];
  body: string | null;
}

const BODY_CHARS = 2000;
const FRAMES_PER_EXCEPTION = 3;
const ERROR_LOGS = 10;

export function requestSummary(request: KernelRequest): RequestSummary {
  const raw = request.raw as KernelRequest['raw'] & { body?: unknown };
  const body = raw.body;
  let shown: string | null = null;
  if (typeof body === 'string' && body !== '') shown = Redactor.text(body.slice(0, BODY_CHARS));
  else if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && Object.keys(body).length > 0) {
    shown = JSON.stringify(toJsonSafe(body, { maxString: BODY_CHARS }), null, 2);
  }
  return {
    method: request.method,
    url: request.maskedUri,
    route: request.routeName ?? null,
    controller: request.attributes._controller ?? null,
    headers: Object.entries(Redactor.headers(raw.headers)).map(([name, value]) => ({ name, value })),
    body: shown,
  };
}

/**
 * The failure as Markdown, for an issue or a chat with a coding assistant: the request, each exception of the chain
 * with its first frames (the application's first), and the error log entries. Built from what the page shows,
 * masked the same way.
 */
export function errorMarkdown(
  exceptions: readonly FlattenedException[],
  request: RequestSummary,
  status: number,
  logs: readonly LogEntry[],
  profileToken: string | null,
): string {
  const outer = exceptions[0];
  const lines = [
    `## ${outer ? `${outer.class}: ${Redactor.text(outer.message)}` : `${status} ${STATUS_CODES[status] ?? 'Error'}`}`,
    '',
  ];
  lines.push(
    `\`${request.method} ${request.url}\` answered **${status} ${STATUS_CODES[status] ?? ''}**`.trimEnd() +
      ` (route: ${request.route ?? 'none'}, controller: ${request.controller ?? 'none'}${profileToken ? `, profile ${profileToken}` : ''}).`,
  );
  lines.push('', '### Exceptions', '');
  for (const exception of exceptions) {
    lines.push(
      `- [${exception.position}/${exception.count}] \`${exception.class}\`: ${Redactor.text(exception.message)}`,
    );
    const own = exception.frames.slice(0, exception.frames.length - (exception.sharedFrames ?? 0));
    const application = own.filter((f) => !isFrameworkFrame(f));
    for (const frame of (application.length > 0 ? application : own).slice(0, FRAMES_PER_EXCEPTION)) {
      lines.push(`  - at \`${frame.function}\` (${frame.file}:${frame.line})`);
    }
  }
  // The uncaught exception's own entry repeats the chain above.
  const errors = logs
    .filter((entry) => entry.level >= LogLevel.ERROR && entry.template !== UNCAUGHT_EXCEPTION)
    .slice(-ERROR_LOGS);
  if (errors.length > 0) {
    lines.push('', '### Error logs', '');
    // Masked as the page's log table masks it: the context's secret fields before they fill the placeholders.
    for (const entry of errors) {
      const context = toJsonSafe(entry.context, { maxDepth: 3 }) as Record<string, unknown>;
      lines.push(`- ${entry.levelName} ${entry.channel}: ${interpolate(Redactor.text(entry.template), context)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
