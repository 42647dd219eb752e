import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import type { KernelContext } from '../lifecycle/kernel-context.js';
import {
  DataCollector,
  type PanelBadge,
  type PanelRequest,
  type TimelineBar,
  type ToolbarBlock,
} from '../profiler/collectors/data-collector.js';
import { SourceResolver } from '../profiler/error-page/source-resolver.js';
import type { CallerPosition } from './caller.js';
import { describeDatabaseTarget, parseDatabaseUrl, type DialectName } from './database-url.js';
import { ExplainCsrf } from './explain/explain-csrf.js';
import { explainRefusal } from './explain/explain-guard.js';
import type { QueryPlan } from './explain/query-explainer.js';
import { highlightedSql } from './panel/sql-highlighter.js';
import { runnableQuery } from './panel/sql-literals.js';
import { transactionSpans } from './panel/transactions.js';
import { queryTimings, recordedQueries, type RecordedQuery } from './query-recorder.js';

export interface DatabaseData {
  dialect: DialectName;
  /** DATABASE_URL, password masked. */
  database: string;
  queries: RecordedQuery[];
  /** Queries beyond the per-request cap: counted, not recorded. */
  dropped: number;
}

/** A query pattern (the same SQL) run this many times in one request is flagged: likely an N+1 loop. */
export const REPEATED_QUERY_THRESHOLD = 5;

interface QueryGroup {
  sql: string;
  params: string | null;
  count: number;
  time: number;
  /** Distinct parameter sets (similar groups). */
  variants: Set<string>;
  callers: Set<string>;
  numbers: number[];
  failures: number;
}

/**
 * Every query of the request (the QueryRecorder's list): SQL, parameters, duration, start, the caller's file and
 * line, errors; identical queries (same SQL and parameters) and similar ones (same SQL, other parameters) grouped
 * with counts and total time, so that an N+1 loop stands out. Callers are mapped to TypeScript (source maps) only
 * when the panel is opened.
 */
@Injectable()
export class DatabaseCollector extends DataCollector<DatabaseData> {
  readonly name = 'database';
  readonly label = 'Database';
  override readonly priority = 210;
  override readonly deferrable = true;
  private readonly target: { dialect: DialectName; database: string };
  private readonly slowQueryMs: number;

  constructor(
    config: AppConfig,
    private readonly sources: SourceResolver,
    private readonly csrf: ExplainCsrf,
  ) {
    super();
    this.slowQueryMs = config.profiler.slowQueryMs;
    const target = parseDatabaseUrl(config.database.url, config.projectDir);
    this.target = { dialect: target.dialect, database: describeDatabaseTarget(target) };
  }

  /** Each query a bar of the Performance timeline. */
  override timeline(context: KernelContext): TimelineBar[] {
    return queryTimings(context).map((timing) => ({ ...timing, category: 'query' }));
  }

  /** Each distinct statement (its parameters are values, often masked: not searched). */
  override searchText(data: DatabaseData): string[] {
    return [...new Set(data.queries.map((q) => q.sql))];
  }

  override lateCollect(context: KernelContext): DatabaseData {
    const recorded = recordedQueries(context);
    return { ...this.target, queries: recorded ? [...recorded.queries] : [], dropped: recorded?.dropped ?? 0 };
  }

  override badge(data: DatabaseData): PanelBadge {
    const count = data.queries.length + data.dropped;
    const failed = data.queries.some((q) => q.error !== null);
    const repeated = mostRepeated(data.queries) >= REPEATED_QUERY_THRESHOLD;
    return { text: String(count), kind: failed ? 'error' : repeated ? 'warning' : 'info' };
  }

  /** Queries and their time; failed queries in red, identical queries and a likely N+1 loop in yellow. */
  override toolbar(data: DatabaseData): ToolbarBlock {
    const count = data.queries.length + data.dropped;
    const failed = data.queries.filter((q) => q.error !== null).length;
    const time = data.queries.reduce((sum, q) => sum + q.duration, 0);
    const repeated = mostRepeated(data.queries);
    const identical =
      data.queries.length - new Set(data.queries.map((q) => `${q.sql}\u0000${JSON.stringify(q.params)}`)).size;
    const loop = repeated >= REPEATED_QUERY_THRESHOLD;
    return {
      status: failed > 0 ? 'error' : loop || identical > 0 ? 'warning' : null,
      count,
      time: time.toFixed(1),
      rows: [
        { label: 'Queries', value: data.dropped > 0 ? `${count} (${data.dropped} not recorded)` : String(count) },
        { label: 'Query time', value: `${time.toFixed(2)} ms` },
        { label: 'Different statements', value: String(new Set(data.queries.map((q) => q.sql)).size) },
        {
          label: 'Identical queries',
          value: identical > 0 ? `${identical} repeated with the same parameters` : 'none',
          status: identical > 0 ? 'warning' : null,
        },
        {
          label: 'Same SQL, most runs',
          value: loop ? `${repeated} times: a likely N+1 loop` : String(repeated),
          status: loop ? 'warning' : null,
        },
        ...(failed > 0 ? [{ label: 'Failed', value: String(failed), status: 'error' }] : []),
        { label: 'Database', value: data.database },
      ],
    };
  }

  /**
   * The queries laid out and highlighted, each with its runnable form and, for a SELECT, an EXPLAIN form; the
   * statements of a transaction grouped; `request.result.explain` is a plan the EXPLAIN route asked to show.
   */
  override panel(data: DatabaseData, request?: PanelRequest): object {
    const locate = this.callerLocator();
    const similar = new Map<string, QueryGroup>();
    const identical = new Map<string, QueryGroup>();
    const token = request?.profile.token ?? null;
    const explained = (request?.result as { explain?: QueryPlan & { number: number } } | undefined)?.explain;
    const rows = data.queries.map((q, i) => {
      const params = JSON.stringify(q.params);
      const caller = locate(q.caller);
      const number = i + 1;
      addTo(similar, q.sql, q, null, params, caller, number);
      addTo(identical, `${q.sql}\u0000${params}`, q, params, params, caller, number);
      const runnable = runnableQuery(q.sql, q.params, data.dialect);
      return {
        number,
        sql: q.sql,
        html: highlightedSql(q.sql, data.dialect),
        runnable: runnable.sql,
        masked: runnable.masked,
        explainToken:
          token !== null && q.error === null && explainRefusal(q.sql) === null ? this.csrf.token(token, number) : null,
        plan: explained?.number === number ? explained : null,
        params: q.params.length > 0 ? params : null,
        start: q.start.toFixed(2),
        duration: q.duration.toFixed(2),
        slow: q.duration >= this.slowQueryMs,
        caller,
        callerNote: caller === null ? 'not captured: run outside a query builder' : null,
        /** `begin` and `commit` have no caller of their own: the transaction's, linked like a caller. */
        transactionCaller: null as string | null,
        transaction: null as null | { begins: boolean; ends: boolean; label: string },
        error: q.error,
      };
    });
    for (const span of transactionSpans(
      rows.map((r) => r.sql),
      rows.map((r) => r.caller),
    )) {
      for (let i = span.first; i <= span.last; i++) {
        const row = rows[i];
        row.transaction = {
          begins: i === span.first,
          ends: i === span.last,
          label: `${span.last - span.first + 1} statements, ${span.outcome}`,
        };
        if (row.caller !== null) continue;
        row.callerNote = span.caller === null ? 'an empty transaction' : 'transaction of';
        row.transactionCaller = span.caller;
      }
    }
    for (const row of rows) {
      const group = similar.get(row.sql)!;
      Object.assign(row, { similarCount: group.count, repeated: group.count >= REPEATED_QUERY_THRESHOLD });
    }
    const total = data.queries.reduce((sum, q) => sum + q.duration, 0);
    const similarGroups = [...similar.values()]
      .filter((g) => g.count > 1)
      .sort(byCountThenTime)
      .map(groupView);
    const identicalGroups = [...identical.values()]
      .filter((g) => g.count > 1)
      .sort(byCountThenTime)
      .map(groupView);
    return {
      dialect: data.dialect,
      database: data.database,
      count: data.queries.length + data.dropped,
      recorded: data.queries.length,
      dropped: data.dropped,
      failed: data.queries.filter((q) => q.error !== null).length,
      total: total.toFixed(2),
      statements: similar.size,
      duplicates: identicalGroups.reduce((sum, g) => sum + g.count - 1, 0),
      threshold: REPEATED_QUERY_THRESHOLD,
      slowQueryMs: this.slowQueryMs,
      slowCount: rows.filter((r) => r.slow).length,
      token,
      warnings: similarGroups.filter((g) => g.repeated),
      similarGroups,
      identicalGroups,
      queries: rows,
    };
  }

  /** Maps raw positions (dist/*.js) to the TypeScript source once per distinct position, project-relative. */
  private callerLocator(): (caller: CallerPosition | null) => string | null {
    const seen = new Map<string, string>();
    return (caller) => {
      if (!caller) return null;
      const key = `${caller.file}:${caller.line}:${caller.column}`;
      let shown = seen.get(key);
      if (shown === undefined) {
        const located = this.sources.locate(caller.file, caller.line, caller.column);
        shown = `${this.sources.relativePath(located.file)}:${located.line}`;
        seen.set(key, shown);
      }
      return shown;
    };
  }
}

function mostRepeated(queries: RecordedQuery[]): number {
  const counts = new Map<string, number>();
  let max = 0;
  for (const q of queries) {
    const n = (counts.get(q.sql) ?? 0) + 1;
    counts.set(q.sql, n);
    if (n > max) max = n;
  }
  return max;
}

function addTo(
  groups: Map<string, QueryGroup>,
  key: string,
  q: RecordedQuery,
  params: string | null,
  variant: string,
  caller: string | null,
  number: number,
): void {
  let group = groups.get(key);
  if (!group) {
    group = {
      sql: q.sql,
      params,
      count: 0,
      time: 0,
      variants: new Set(),
      callers: new Set(),
      numbers: [],
      failures: 0,
    };
    groups.set(key, group);
  }
  group.count++;
  group.time += q.duration;
  group.variants.add(variant);
  if (caller) group.callers.add(caller);
  group.numbers.push(number);
  if (q.error !== null) group.failures++;
}

function byCountThenTime(a: QueryGroup, b: QueryGroup): number {
  return b.count - a.count || b.time - a.time;
}

interface GroupView {
  sql: string;
  params: string | null;
  count: number;
  time: string;
  average: string;
  variants: number;
  callers: string[];
  numbers: string;
  failures: number;
  repeated: boolean;
}

function groupView(group: QueryGroup): GroupView {
  return {
    sql: group.sql,
    params: group.params,
    count: group.count,
    time: group.time.toFixed(2),
    average: (group.time / group.count).toFixed(2),
    variants: group.variants.size,
    callers: [...group.callers],
    numbers: group.numbers.length > 12 ? `${group.numbers.slice(0, 12).join(', ')}, …` : group.numbers.join(', '),
    failures: group.failures,
    repeated: group.count >= REPEATED_QUERY_THRESHOLD,
  };
}
