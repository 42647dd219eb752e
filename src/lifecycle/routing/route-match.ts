import type { Route } from './route.js';
import { contextKey } from '../kernel-context.js';

export interface RouteMatch {
  route: Route;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** Set when only the path with its trailing slash toggled matched (GET/HEAD): redirect there. */
  redirectTo?: string;
}

/**
 * Where the RouterListener leaves the route it matched on the KernelContext (a route, not a redirect), so the kernel
 * can call that route's handler itself (KernelHttpAdapter.directHandler) instead of letting Express route the
 * request a second time.
 */
export const MATCHED_ROUTE = contextKey<RouteMatch>('shopkernel.matched-route');
