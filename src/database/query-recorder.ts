import type {
  KyselyPlugin,
  LogEvent,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { contextKey, currentKernelContext, type KernelContext } from '../lifecycle/kernel-context.js';
import type { KernelLogger } from '../lifecycle/logging/kernel-logger.js';
import { Profile } from '../profiler/profile.js';
import { captureCaller, type CallerPosition, type StackEntry } from './caller.js';
import type { QueryKind } from './query-entries.js';
import { safeParameters } from './query-parameters.js';

/** One query a request ran, as the database panel and the timeline show it. */
export interface RecordedQuery {
  sql: string;
  /** JSON-safe, secret-looking columns masked (safeParameters). */
  params: unknown[];
  /** Milliseconds the driver took. */
  duration: number;
  /** Milliseconds since the request entered the kernel, when the driver started. */
  start: number;
  /** The code that issued it (raw V8 position, mapped when shown); only on profiled requests. */
  caller: CallerPosition | null;
  /** The driver's error message when the query failed. */
  error: string | null;
}

/** The request's queries, on its KernelContext. */
export interface RequestQueries {
  queries: RecordedQuery[];
  /** Queries beyond MAX_RECORDED_QUERIES: counted, not kept. */
  dropped: number;
  /**
   * Callers captured when a query was compiled, until the driver reports it (keyed by Kysely's query id). A Map: it
   * lives as long as the request, and a WeakMap's entries cost every garbage collection more.
   */
  readonly callers: Map<object, CallerPosition | null>;
}

export const DATABASE_QUERIES = contextKey<RequestQueries>('shopkernel.database.queries');

/** A request keeps at most this many queries (an N+1 loop over a big list could run thousands). */
export const MAX_RECORDED_QUERIES = 1000;

/** The queries the current (or given) request has run so far; empty outside a request. */
export function recordedQueries(
  context: KernelContext | undefined = currentKernelContext(),
): RequestQueries | undefined {
  return context?.get(DATABASE_QUERIES);
}

/** A query as the Performance panel's timeline draws it. */
export interface QueryTiming {
  name: string;
  start: number;
  duration: number;
}

/** The request's queries for the Performance timeline: at most `limit` bars, labelled with the start of their SQL. */
export function queryTimings(context: KernelContext, limit = 200): QueryTiming[] {
  const queries = recordedQueries(context)?.queries ?? [];
  return queries
    .slice(0, limit)
    .map((q, i) => ({ name: `#${i + 1} ${shorten(q.sql, 44)}`, start: q.start, duration: q.duration }));
}

function shorten(sql: string, length: number): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

function requestQueries(context: KernelContext): RequestQueries {
  let state = context.get(DATABASE_QUERIES);
  if (!state) {
    state = { queries: [], dropped: 0, callers: new Map() };
    context.set(DATABASE_QUERIES, state);
  }
  return state;
}

/**
 * Reports every query of the shop's Kysely instance, through two of Kysely's hooks:
 * - as a plugin, `transformQuery` runs synchronously inside the caller's `execute()`, before any await: on a
 *   profiled request the caller's position is captured there (V8 CallSites, see captureCaller);
 * - as the `log` option, `log` receives each query once the driver is done, with its SQL, parameters and
 *   duration (or its error): the query is recorded on the current request (AsyncLocalStorage) and logged on the
 *   `database` channel at DEBUG.
 * Outside a request (start-up migrations, the seed, the CLI) queries are only logged.
 */
export class QueryRecorder implements KyselyPlugin {
  private readonly channel;
  /** Each kind of query's `execute` (see queryEntries): the captured stack starts below it. */
  private entries: ReadonlyMap<QueryKind, StackEntry> = new Map();

  constructor(logger?: KernelLogger) {
    this.channel = logger?.channel('database');
  }

  /** The builders' `execute` methods of the Kysely instance this recorder is a plugin of (queryEntries). */
  recognise(entries: ReadonlyMap<QueryKind, StackEntry>): void {
    this.entries = entries;
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    const context = currentKernelContext();
    if (context && Profile.of(context))
      requestQueries(context).callers.set(queryId, captureCaller(this.entries.get(node.kind)));
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }

  /** Kysely's `log` option. */
  readonly log = (event: LogEvent): void => {
    const { sql, parameters, queryId } = event.query;
    const duration = event.queryDurationMillis;
    const error = event.level === 'error' ? errorMessage(event.error) : null;
    const params = safeParameters(sql, parameters);
    const context = currentKernelContext();
    if (context) {
      const state = requestQueries(context);
      const caller = state.callers.get(queryId) ?? null;
      state.callers.delete(queryId);
      if (state.queries.length < MAX_RECORDED_QUERIES) {
        state.queries.push({ sql, params, duration, start: Math.max(0, context.elapsed() - duration), caller, error });
      } else {
        state.dropped++;
      }
    }
    if (this.channel) {
      const ms = Math.round(duration * 100) / 100;
      if (error === null) this.channel.debug('Query ({duration} ms): {sql}', { sql, params, duration: ms });
      else this.channel.debug('Query failed ({duration} ms): {sql}', { sql, params, duration: ms, error });
    }
  };
}

/** The driver's message. Not `instanceof Error`: a native driver's errors may come from another realm (Jest's VM contexts). */
function errorMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
