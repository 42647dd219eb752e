import { Injectable } from '@nestjs/common';
import { interpolate } from '../../lifecycle/logging/log-entry.js';
import { LOG_LEVEL_NAMES, LogLevel } from '../../lifecycle/logging/log-level.js';
import type { FlattenedFrame } from '../error-page/flattened-exception.js';
import type { ExcerptLine } from '../error-page/source-resolver.js';
import { ProfilerService } from '../profiler.service.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { partsOf } from '../profile-parts.js';
import { mebibytes, ms } from '../views/figures.js';
import { fitting, oneLine, withinBudget } from './digest-text.js';

/** What a tool answers: a few lines for the model to read, and the same facts as structured content. */
export interface Digest {
  text: string;
  data: Record<string, unknown>;
}

/**
 * The most characters of text a digest answers with (its list is cut, saying how to see the rest); its structured
 * content names the same items, so that a whole answer stays within a few kilobytes.
 */
const TEXT_BUDGET = 3000;
/** Log entries are short and many, and their structured form is larger than their line. */
const LOG_BUDGET = 2400;
/** Lines of code shown on each side of the line that threw. */
const EXCERPT_RADIUS = 3;

interface ExceptionView {
  class: string;
  message: string;
  statusCode: number;
  frames: FlattenedFrame[];
  excerpt: { file: string; line: number; lines: ExcerptLine[] } | null;
}

interface QueryGroupView {
  sql: string;
  count: number;
  time: string;
  callers: string[];
  repeated: boolean;
}

interface DatabaseView {
  count: number;
  failed: number;
  total: string;
  statements: number;
  warnings: QueryGroupView[];
  similarGroups: QueryGroupView[];
  queries: Array<{ number: number; sql: string; duration: string; caller: string | null; error: string | null }>;
}

/**
 * A profile as short answers for coding assistants (the MCP tools): its summary, exception chain, logs, queries
 * and timeline, from the same stored (redacted) data and panel models the profiler's pages show.
 */
@Injectable()
export class ProfileDigests {
  constructor(private readonly profiler: ProfilerService) {}

  summary(record: ProfileRecord): Digest {
    const { request, response, logs, database, exception, memory } = partsOf(record);
    const first = exception?.exceptions[0];
    const queryTime = (database?.queries ?? []).reduce((sum, q) => sum + q.duration, 0);
    const data = {
      token: record.token,
      method: record.method,
      url: record.url,
      status: record.statusCode,
      statusText: response?.statusText ?? null,
      route: record.route,
      controller: request?.controller ?? null,
      durationMs: record.duration,
      time: new Date(record.time).toISOString(),
      queries: { count: (database?.queries.length ?? 0) + (database?.dropped ?? 0), timeMs: round(queryTime) },
      logs: logs?.counts ?? null,
      exception: first ? { class: first.class, message: first.message } : null,
      memoryPeakBytes: memory?.peakRss ?? null,
      trace: request?.trace ? { traceId: request.trace.traceId, parentSpanId: request.trace.parentSpanId } : null,
    };
    const lines = [
      `${record.method} ${record.url} -> ${record.statusCode}${response ? ` ${response.statusText}` : ''} in ${record.duration === null ? '?' : ms(record.duration)} (profile ${record.token}, ${data.time})`,
      `Route: ${record.route ?? '(none)'}; controller: ${data.controller ?? '(none)'}`,
      `Queries: ${data.queries.count} in ${ms(queryTime)}; logs: ${logs ? `${logs.counts.errors} errors, ${logs.counts.warnings} warnings, ${logs.counts.deprecations} deprecations` : 'none'}${memory ? `; memory peak ${mebibytes(memory.peakRss)}` : ''}`,
      first ? `Exception: ${first.class}: ${oneLine(first.message, 300)}` : 'No exception.',
    ];
    return { text: lines.join('\n'), data };
  }

  /** The chain, outermost first, each with its application frames (source-mapped) and the code where it was thrown. */
  async exception(record: ProfileRecord, maxFrames: number): Promise<Digest> {
    const stored = partsOf(record).exception;
    if (!stored) return { text: `Profile ${record.token}: no exception was thrown.`, data: { exceptions: [] } };
    const view = await this.panel<{ exceptions: ExceptionView[] }>('exception', record, stored);
    const exceptions = view.exceptions.map((e) => {
      const own = e.frames.filter((f) => !f.vendor);
      return {
        class: e.class,
        message: e.message,
        statusCode: e.statusCode,
        frames: own.slice(0, maxFrames).map((f) => ({ function: f.function, file: f.file, line: f.line })),
        vendorFrames: e.frames.length - own.length,
        excerpt: e.excerpt && {
          file: e.excerpt.file,
          line: e.excerpt.line,
          code: e.excerpt.lines
            .filter((l) => Math.abs(l.number - e.excerpt!.line) <= EXCERPT_RADIUS)
            .map((l) => `${l.current ? '>' : ' '} ${l.number} | ${l.text}`)
            .join('\n'),
        },
      };
    });
    const lines = exceptions.flatMap((e, i) => [
      `${i === 0 ? '' : 'Caused by: '}${e.class} (${e.statusCode}): ${oneLine(e.message, 400)}`,
      ...e.frames.map((f) => `  at ${f.function} (${f.file}:${f.line})`),
      ...(e.vendorFrames > 0 ? [`  (${e.vendorFrames} frames in node_modules and Node left out)`] : []),
      ...(e.excerpt ? [`  ${e.excerpt.file}:${e.excerpt.line}`, e.excerpt.code] : []),
    ]);
    return { text: withinBudget(lines, TEXT_BUDGET, (left) => `... ${left} more lines`), data: { exceptions } };
  }

  logs(record: ProfileRecord, options: { minLevel: LogLevel; channel?: string; limit: number }): Digest {
    const logs = partsOf(record).logs;
    const all = logs?.entries ?? [];
    const matching = all.filter(
      (e) => e.level >= options.minLevel && (options.channel === undefined || e.channel === options.channel),
    );
    const listed = fitting(
      matching.slice(0, options.limit).map((e) => ({
        level: LOG_LEVEL_NAMES[e.level as LogLevel] ?? String(e.level),
        channel: e.channel,
        message: oneLine(interpolate(e.message, e.context), 300),
        atMs: Math.max(0, e.time - record.time),
      })),
      (e) => `[${e.level}] ${e.channel}: ${e.message}`,
      LOG_BUDGET,
    );
    const counts = logs ? { ...logs.counts, notStored: logs.truncated } : null;
    const heading = `${matching.length} of ${all.length} stored entries at ${LOG_LEVEL_NAMES[options.minLevel]} or above${options.channel ? ` on channel "${options.channel}"` : ''}${counts ? ` (errors ${counts.errors}, warnings ${counts.warnings}, deprecations ${counts.deprecations}, debug ${counts.debug}${counts.notStored > 0 ? `; ${counts.notStored} more were not stored` : ''})` : ''}`;
    const omitted = matching.length - listed.items.length;
    const tail = omitted > 0 ? [`... ${omitted} more: ask for a higher level, a channel or fewer entries`] : [];
    return {
      text: [heading, ...listed.lines, ...tail].join('\n'),
      data: { total: all.length, matching: matching.length, omitted, counts, entries: listed.items },
    };
  }

  /** Statements grouped by their SQL, slowest groups first, repeated ones (a likely N+1 loop) flagged. */
  async queries(record: ProfileRecord, limit: number): Promise<Digest> {
    const stored = partsOf(record).database;
    if (!stored || stored.queries.length === 0)
      return { text: `Profile ${record.token}: no database query.`, data: { count: 0, groups: [] } };
    const view = await this.panel<DatabaseView>('database', record, stored);
    const failed = view.queries.filter((q) => q.error !== null).map((q) => ({ number: q.number, error: q.error! }));
    const head = [
      `${view.count} queries (${view.statements} distinct statements) in ${view.total} ms${view.failed > 0 ? `, ${view.failed} failed` : ''}`,
      ...view.warnings.map(
        (g) => `Likely N+1: ${g.count}x ${oneLine(g.sql, 160)} (from ${g.callers.join(', ') || '?'})`,
      ),
      ...failed.slice(0, 5).map((f) => `Query #${f.number} failed: ${oneLine(f.error, 300)}`),
    ];
    const sorted = [...groupsOf(view)].sort((a, b) => Number(b.time) - Number(a.time)).slice(0, limit);
    const listed = fitting(
      sorted,
      (g) =>
        `${g.count}x ${g.time} ms ${oneLine(g.sql, 200)}${g.callers.length > 0 ? ` <- ${g.callers.slice(0, 2).join(', ')}` : ''}`,
      TEXT_BUDGET - head.join('\n').length,
    );
    const omitted = groupsOf(view).length - listed.items.length;
    return {
      text: [...head, ...listed.lines, ...(omitted > 0 ? [`... ${omitted} more statements`] : [])].join('\n'),
      data: {
        count: view.count,
        distinct: view.statements,
        totalMs: Number(view.total),
        failed: failed.slice(0, 5),
        repeated: view.warnings.map((g) => ({ sql: oneLine(g.sql, 500), count: g.count, callers: g.callers })),
        groups: listed.items.map((g) => ({
          sql: oneLine(g.sql, 500),
          count: g.count,
          timeMs: Number(g.time),
          callers: g.callers,
        })),
        omitted,
      },
    };
  }

  /** Where the time went: each kernel event, the controller, templates and queries, the slowest listeners. */
  timeline(record: ProfileRecord): Digest {
    const performance = partsOf(record).performance;
    if (!performance) return { text: `Profile ${record.token}: no timeline was recorded.`, data: { sections: [] } };
    const sections = performance.sections;
    const byCategory = (category: string) => sections.filter((s) => s.category === category);
    const sum = (list: typeof sections) => round(list.reduce((total, s) => total + s.duration, 0));
    const events = byCategory('event').map((s) => ({
      name: s.name,
      startMs: round(s.start),
      durationMs: round(s.duration),
    }));
    const controller = byCategory('controller')[0];
    const slowest = [...byCategory('listener')].sort((a, b) => b.duration - a.duration).slice(0, 5);
    const data = {
      totalMs: round(performance.total),
      untilResponseMs: performance.untilResponse === null ? null : round(performance.untilResponse),
      events,
      controller: controller
        ? { name: controller.name, startMs: round(controller.start), durationMs: round(controller.duration) }
        : null,
      slowestListeners: slowest.map((s) => ({ name: s.name, durationMs: round(s.duration) })),
      queriesMs: sum(byCategory('query')),
      templatesMs: sum(byCategory('template')),
    };
    const lines = [
      `Total ${ms(performance.total)}${performance.untilResponse === null ? '' : `, ${ms(performance.untilResponse)} until kernel.response`}`,
      ...events.map((e) => `${e.name}: ${ms(e.durationMs)} at ${ms(e.startMs)}`),
      controller
        ? `Controller ${controller.name}: ${ms(controller.duration)} at ${ms(controller.start)}`
        : 'No controller ran.',
      `Queries ${ms(data.queriesMs)}, templates ${ms(data.templatesMs)}`,
      `Slowest listeners: ${slowest.map((s) => `${s.name} ${ms(s.duration)}`).join(', ') || 'none'}`,
    ];
    return { text: lines.join('\n'), data };
  }

  /** A collector's panel model, as its panel would show it (source-mapped, formatted). */
  private async panel<T>(name: string, record: ProfileRecord, data: unknown): Promise<T> {
    const collector = this.profiler.collector(name);
    if (!collector) throw new Error(`This application has no "${name}" collector.`);
    return (await collector.panel(data, { profile: record, query: {} })) as T;
  }
}

function groupsOf(view: DatabaseView): QueryGroupView[] {
  const grouped = new Set(view.similarGroups.map((g) => g.sql));
  const singles = view.queries
    .filter((q) => !grouped.has(q.sql))
    .map((q) => ({ sql: q.sql, count: 1, time: q.duration, callers: q.caller ? [q.caller] : [], repeated: false }));
  return [...view.similarGroups, ...singles];
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
