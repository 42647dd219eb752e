import type { Route } from './route.js';

export interface RouteMatch {
  route: Route;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** Set when only the path with its trailing slash toggled matched (GET/HEAD): redirect there. */
  redirectTo?: string;
}
