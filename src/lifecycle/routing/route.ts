import { compile, match, type MatchFunction, type PathFunction } from 'path-to-regexp';

export interface RouteOptions {
  caseSensitive?: boolean;
  /** Matched only for clients allowed to see debug details (`@DebugRoute()`). */
  debugOnly?: boolean;
  defaults?: Record<string, unknown>;
  /** The function Nest registered for the route (it carries the handler's decorator metadata). */
  handler?: (...args: never[]) => unknown;
}

/**
 * One route: a name, an Express path (path-to-regexp 8 syntax, the one Nest and Express 5 use), the methods it
 * accepts (empty: any) and the controller that serves it (`Class::method`).
 */
export class Route {
  readonly methods: readonly string[];
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly handler: ((...args: never[]) => unknown) | undefined;
  readonly debugOnly: boolean;
  private readonly matcher: MatchFunction<Record<string, string | string[]>>;
  private generator?: PathFunction<Record<string, string | string[]>>;
  private parameters?: ReadonlySet<string>;

  constructor(
    readonly name: string,
    readonly path: string,
    methods: string[],
    readonly controller: string,
    options: RouteOptions = {},
  ) {
    this.methods = methods.map((m) => m.toUpperCase());
    this.defaults = options.defaults ?? {};
    this.handler = options.handler;
    this.debugOnly = options.debugOnly ?? false;
    // The same options as Express 5's router with "strict routing" on: so both agree on every path.
    this.matcher = match(path, {
      decode: false,
      end: true,
      trailing: false,
      sensitive: options.caseSensitive ?? false,
    });
  }

  /** The raw (still percent-encoded) parameters when the path matches, else null. */
  matchPath(pathinfo: string): Record<string, string | string[]> | null {
    const result = this.matcher(pathinfo);
    return result ? result.params : null;
  }

  accepts(method: string): boolean {
    if (this.methods.length === 0) return true;
    if (this.methods.includes(method)) return true;
    return method === 'HEAD' && this.methods.includes('GET');
  }

  /** The names of the path's parameters (`:name`, `*name`). */
  get parameterNames(): ReadonlySet<string> {
    return (this.parameters ??= new Set(this.path.match(/[:*]([A-Za-z_$][\w$]*)/g)?.map((p) => p.slice(1)) ?? []));
  }

  generate(params: Record<string, string | string[]>): string {
    this.generator ??= compile(this.path, { encode: encodeURIComponent });
    return this.generator(params);
  }
}
