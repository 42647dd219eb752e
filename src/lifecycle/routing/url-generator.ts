import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { contextKey, currentKernelContext } from '../kernel-context.js';
import { RouteTable } from './route-table.js';

/** Scheme and host that absolute URLs are generated against: the current request's, else the configured default. */
export interface RouterContext {
  scheme: string;
  httpHost: string;
}

export const ROUTER_CONTEXT = contextKey<RouterContext | null>('router context');

export class RouteNotFoundException extends Error {
  constructor(name: string) {
    super(`Unable to generate a URL for the named route "${name}" as such route does not exist.`);
    this.name = 'RouteNotFoundException';
  }
}

/** Builds URLs from route names: `generate('_profiler', { token }, true)`. */
@Injectable()
export class UrlGenerator {
  constructor(
    private readonly table: RouteTable,
    private readonly config: AppConfig,
  ) {}

  generate(name: string, params: Record<string, string | number> = {}, absolute = false): string {
    const route = this.table.routes.get(name);
    if (!route) throw new RouteNotFoundException(name);
    const names = route.parameterNames;
    const pathParams: Record<string, string> = {};
    let query: URLSearchParams | null = null;
    for (const key of Object.keys(params)) {
      if (names.has(key)) pathParams[key] = String(params[key]);
      else (query ??= new URLSearchParams()).append(key, String(params[key]));
    }
    const qs = query === null ? '' : query.toString();
    const path = route.generate(pathParams) + (qs ? `?${qs}` : '');
    return absolute ? `${this.baseUrl()}${path}` : path;
  }

  private baseUrl(): string {
    const context = currentKernelContext()?.get(ROUTER_CONTEXT);
    if (context) return `${context.scheme}://${context.httpHost}`;
    return `http://${this.config.host}${this.config.port === 80 ? '' : `:${this.config.port}`}`;
  }
}
