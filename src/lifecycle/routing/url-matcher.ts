import { MethodNotAllowedException } from '../exceptions/method-not-allowed.exception.js';
import { ResourceNotFoundException } from '../exceptions/resource-not-found.exception.js';
import type { Route } from './route.js';
import type { RouteCollection } from './route-collection.js';
import type { RouteMatch } from './route-match.js';

/**
 * Matches a path and method against the route collection, first route first, like Symfony's redirectable
 * matcher: a path known for other methods is a MethodNotAllowedException (with the allowed methods); for GET
 * and HEAD, a path that matches only with its trailing slash toggled is a redirect to that path; otherwise a
 * ResourceNotFoundException naming the last path tried.
 */
export type RouteTraceLevel = 'matches' | 'method does not match' | 'path does not match' | 'hidden from this client';

/** How one route compared with a request, for the profiler's route matching log. */
export interface RouteTrace {
  name: string;
  path: string;
  methods: readonly string[];
  result: RouteTraceLevel;
}

/** Routes grouped by their literal first path segment, for `UrlMatcher.candidates` (see there). */
interface RouteIndex {
  size: number;
  /** Lower-cased literal first segment → the routes that may match a path starting with it, in matching order. */
  byFirstSegment: Map<string, readonly Route[]>;
  /** The routes whose first segment is not a plain literal: candidates for every path. */
  dynamic: readonly Route[];
}

export class UrlMatcher {
  private index: RouteIndex | undefined;

  constructor(private readonly routes: RouteCollection) {}

  /**
   * Every route in matching order and how it compares with this path and method, up to the first match; debug-only
   * routes are skipped as `match` skips them for a client who may not see them.
   */
  trace(pathinfo: string, method: string, debugVisible = true): RouteTrace[] {
    const traces: RouteTrace[] = [];
    for (const route of this.routes.all()) {
      if (route.debugOnly && !debugVisible) {
        traces.push({ name: route.name, path: route.path, methods: route.methods, result: 'hidden from this client' });
        continue;
      }
      const pathMatches = route.matchPath(pathinfo) !== null;
      const result: RouteTraceLevel = !pathMatches
        ? 'path does not match'
        : route.accepts(method)
          ? 'matches'
          : 'method does not match';
      traces.push({ name: route.name, path: route.path, methods: route.methods, result });
      if (result === 'matches') break;
    }
    return traces;
  }

  /**
   * The route for a path and method. `debugVisible`: whether the client may see debug-only routes (`@DebugRoute()`);
   * for one who may not they do not exist, so the answer is the one an unknown path gets.
   */
  match(pathinfo: string, method: string, debugVisible = true): RouteMatch {
    const allow = new Set<string>();
    const found = this.doMatch(pathinfo, method, allow, debugVisible);
    if (found) return found;
    if (allow.size > 0) throw new MethodNotAllowedException([...allow]);
    let tried = pathinfo;
    if (method === 'GET' || method === 'HEAD') {
      const trimmed = trimTrailingSlashes(pathinfo) || '/';
      if (trimmed !== '/') {
        tried = trimmed === pathinfo ? `${pathinfo}/` : trimmed;
        const toggled = this.doMatch(tried, method, new Set(), debugVisible);
        if (toggled) return { ...toggled, redirectTo: tried };
      }
    }
    throw new ResourceNotFoundException(`No routes found for "${tried}".`);
  }

  /** Whether a path (or the path with its trailing slash toggled) is a debug-only route's, whatever the method. */
  isDebugPath(pathinfo: string): boolean {
    const trimmed = trimTrailingSlashes(pathinfo) || '/';
    const toggled = trimmed === pathinfo ? `${pathinfo}/` : trimmed;
    return this.candidates(pathinfo).some(
      (route) => route.debugOnly && (route.matchPath(pathinfo) !== null || route.matchPath(toggled) !== null),
    );
  }

  /**
   * The routes that can match a path, in matching order: those whose first segment is the path's (compared
   * case-insensitively, a superset for case-sensitive routes) and those whose first segment is not a plain
   * literal. A route whose path starts with a literal segment matches no path starting with another one, so the
   * first match is the one a scan of every route finds; an unknown path is tried against a handful of routes
   * instead of all (twice: with its trailing slash toggled).
   */
  private candidates(pathinfo: string): readonly Route[] {
    const all = this.routes.all();
    if (this.index?.size !== all.length) this.index = indexRoutes(all);
    if (pathinfo.charCodeAt(0) !== 0x2f) return all;
    const end = pathinfo.indexOf('/', 1);
    const first = (end === -1 ? pathinfo.slice(1) : pathinfo.slice(1, end)).toLowerCase();
    return this.index.byFirstSegment.get(first) ?? this.index.dynamic;
  }

  private doMatch(pathinfo: string, method: string, allow: Set<string>, debugVisible: boolean): RouteMatch | null {
    for (const route of this.candidates(pathinfo)) {
      if (route.debugOnly && !debugVisible) continue;
      const raw = route.matchPath(pathinfo);
      if (raw === null) continue;
      if (!route.accepts(method)) {
        for (const m of route.methods) allow.add(m);
        continue;
      }
      return { route, params: decodeParams(raw, route) };
    }
    return null;
  }
}

/**
 * A route path's first segment when it is plain printable ASCII with nothing path-to-regexp reads as syntax
 * (parameters, wildcards, groups, escapes), lower-cased; undefined otherwise. ASCII only: a regular expression's
 * case-insensitive match and toLowerCase agree there.
 */
function literalFirstSegment(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const end = path.indexOf('/', 1);
  const segment = end === -1 ? path.slice(1) : path.slice(1, end);
  return /^[\x20-\x7e]*$/.test(segment) && !/[:*{}()[\]?+!\\]/.test(segment) ? segment.toLowerCase() : undefined;
}

function indexRoutes(routes: readonly Route[]): RouteIndex {
  const keys = routes.map((route) => literalFirstSegment(route.path));
  const byFirstSegment = new Map<string, readonly Route[]>();
  for (const key of new Set(keys)) {
    if (key !== undefined)
      byFirstSegment.set(
        key,
        routes.filter((_, i) => keys[i] === key || keys[i] === undefined),
      );
  }
  return { size: routes.length, byFirstSegment, dynamic: routes.filter((_, i) => keys[i] === undefined) };
}

function decodeParams(raw: Record<string, string | string[]>, route: Route): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(route.defaults)) params[name] = String(value);
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    params[name] = Array.isArray(value) ? value.map(decodeURIComponent).join('/') : decodeURIComponent(value);
  }
  return params;
}

/**
 * `path` without its trailing slashes. Not `replace(/\/+$/, '')`: that tries every slash of a run as the start of
 * the match, which is quadratic on a long run of slashes followed by a letter.
 */
function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end);
}
