import { interpolate } from '../../lifecycle/logging/log-entry.js';
import { LOG_LEVEL_NAMES, LogLevel } from '../../lifecycle/logging/log-level.js';
import { partsOf } from '../profile-parts.js';
import type { ProfileRecord } from '../storage/profile-record.js';

/** One request of the two, as the comparison's header shows it. */
export interface ComparedSide {
  token: string;
  method: string;
  url: string;
  status: number;
  route: string | null;
  controller: string | null;
  durationMs: number | null;
  time: number;
  memoryPeakBytes: number | null;
  responseBytes: number | null;
}

/** A figure of both requests: a, b and b − a (null where one side lacks it). */
export interface Timed {
  name: string;
  aMs: number | null;
  bMs: number | null;
  deltaMs: number | null;
}

export interface QueryDifference {
  sql: string;
  aCount: number;
  bCount: number;
  aMs: number;
  bMs: number;
}

export interface LogDifference {
  level: string;
  levelNumber: number;
  channel: string;
  /** The first entry's message, placeholders filled. */
  message: string;
  aCount: number;
  bCount: number;
}

export interface HeaderDifference {
  name: string;
  a: string | null;
  b: string | null;
}

/** What changed from request a to request b: times, memory, queries, logs and the response. */
export interface ProfileComparison {
  a: ComparedSide;
  b: ComparedSide;
  duration: Timed;
  events: Timed[];
  controller: Timed | null;
  /** Listeners whose time changed, the largest change first. */
  listeners: Timed[];
  queries: {
    aCount: number;
    bCount: number;
    aMs: number;
    bMs: number;
    added: QueryDifference[];
    removed: QueryDifference[];
    changed: QueryDifference[];
  };
  /** Entries only one side has, or more of on one side: errors first. */
  logs: LogDifference[];
  headers: HeaderDifference[];
}

/** SQL as queries are matched across profiles: white space folded, case of keywords kept. */
export function normalisedSql(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}

/** Headers every response carries with its own value: their difference says nothing. */
const UNCOMPARED_HEADERS = new Set(['x-debug-token', 'x-debug-token-link', 'date']);

export function compareProfiles(a: ProfileRecord, b: ProfileRecord): ProfileComparison {
  const sections = (record: ProfileRecord, category: string) =>
    new Map(
      (partsOf(record).performance?.sections ?? [])
        .filter((s) => s.category === category)
        .map((s) => [s.name, s.duration] as const),
    );
  const controllerA = [...sections(a, 'controller')][0];
  const controllerB = [...sections(b, 'controller')][0];
  return {
    a: side(a),
    b: side(b),
    duration: timed('total', a.duration, b.duration),
    events: pairs(sections(a, 'event'), sections(b, 'event')),
    controller:
      controllerA || controllerB
        ? timed(controllerB?.[0] ?? controllerA![0], controllerA?.[1] ?? null, controllerB?.[1] ?? null)
        : null,
    listeners: pairs(sections(a, 'listener'), sections(b, 'listener'))
      .filter((t) => t.deltaMs === null || Math.abs(t.deltaMs) >= 0.01)
      .sort((x, y) => Math.abs(y.deltaMs ?? Infinity) - Math.abs(x.deltaMs ?? Infinity)),
    queries: compareQueries(a, b),
    logs: compareLogs(a, b),
    headers: compareHeaders(a, b),
  };
}

function side(record: ProfileRecord): ComparedSide {
  const { request, memory, response } = partsOf(record);
  return {
    token: record.token,
    method: record.method,
    url: record.url,
    status: record.statusCode,
    route: record.route,
    controller: request?.controller ?? null,
    durationMs: record.duration,
    time: record.time,
    memoryPeakBytes: memory?.peakRss ?? null,
    responseBytes: response?.size ?? null,
  };
}

function timed(name: string, a: number | null | undefined, b: number | null | undefined): Timed {
  const aMs = a ?? null;
  const bMs = b ?? null;
  return { name, aMs, bMs, deltaMs: aMs === null || bMs === null ? null : bMs - aMs };
}

/** Both sides' figures by name, in a's order then b's new names. */
function pairs(a: Map<string, number>, b: Map<string, number>): Timed[] {
  const names = [...a.keys(), ...[...b.keys()].filter((name) => !a.has(name))];
  return names.map((name) => timed(name, a.get(name), b.get(name)));
}

function compareQueries(a: ProfileRecord, b: ProfileRecord): ProfileComparison['queries'] {
  const grouped = (record: ProfileRecord) => {
    const groups = new Map<string, { count: number; ms: number }>();
    for (const query of partsOf(record).database?.queries ?? []) {
      const group = groups.get(normalisedSql(query.sql)) ?? { count: 0, ms: 0 };
      group.count++;
      group.ms += query.duration;
      groups.set(normalisedSql(query.sql), group);
    }
    return groups;
  };
  const ga = grouped(a);
  const gb = grouped(b);
  const difference = (sql: string): QueryDifference => ({
    sql,
    aCount: ga.get(sql)?.count ?? 0,
    bCount: gb.get(sql)?.count ?? 0,
    aMs: ga.get(sql)?.ms ?? 0,
    bMs: gb.get(sql)?.ms ?? 0,
  });
  const total = (groups: Map<string, { count: number; ms: number }>) =>
    [...groups.values()].reduce((sum, g) => ({ count: sum.count + g.count, ms: sum.ms + g.ms }), { count: 0, ms: 0 });
  const byTime = (x: QueryDifference, y: QueryDifference) => y.bMs + y.aMs - (x.bMs + x.aMs);
  return {
    aCount: total(ga).count,
    bCount: total(gb).count,
    aMs: total(ga).ms,
    bMs: total(gb).ms,
    added: [...gb.keys()]
      .filter((sql) => !ga.has(sql))
      .map(difference)
      .sort(byTime),
    removed: [...ga.keys()]
      .filter((sql) => !gb.has(sql))
      .map(difference)
      .sort(byTime),
    changed: [...ga.keys()]
      .filter((sql) => gb.has(sql))
      .map(difference)
      .filter((d) => d.aCount !== d.bCount)
      .sort(byTime),
  };
}

function compareLogs(a: ProfileRecord, b: ProfileRecord): LogDifference[] {
  const entries = new Map<string, LogDifference>();
  const count = (record: ProfileRecord, which: 'aCount' | 'bCount') => {
    for (const entry of partsOf(record).logs?.entries ?? []) {
      const key = `${entry.level}\u0000${entry.channel}\u0000${entry.message}`;
      let difference = entries.get(key);
      if (!difference) {
        difference = {
          level: LOG_LEVEL_NAMES[entry.level as LogLevel] ?? String(entry.level),
          levelNumber: entry.level,
          channel: entry.channel,
          message: interpolate(entry.message, entry.context),
          aCount: 0,
          bCount: 0,
        };
        entries.set(key, difference);
      }
      difference[which]++;
    }
  };
  count(a, 'aCount');
  count(b, 'bCount');
  return [...entries.values()]
    .filter((d) => d.aCount !== d.bCount)
    .sort((x, y) => y.levelNumber - x.levelNumber || Math.abs(y.bCount - y.aCount) - Math.abs(x.bCount - x.aCount));
}

function compareHeaders(a: ProfileRecord, b: ProfileRecord): HeaderDifference[] {
  const ha = partsOf(a).response?.headers ?? {};
  const hb = partsOf(b).response?.headers ?? {};
  const names = [...new Set([...Object.keys(ha), ...Object.keys(hb)])].filter((n) => !UNCOMPARED_HEADERS.has(n));
  return names
    .filter((name) => ha[name] !== hb[name])
    .sort()
    .map((name) => ({ name, a: ha[name] ?? null, b: hb[name] ?? null }));
}
