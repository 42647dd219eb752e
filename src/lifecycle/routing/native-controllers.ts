import { Injectable } from '@nestjs/common';
import type { KernelRequest } from '../http/kernel-request.js';
import { KernelResponse } from '../http/kernel-response.js';

export type NativeController = (request: KernelRequest, args: Record<string, unknown>) => KernelResponse;

export const REDIRECT_CONTROLLER = 'RedirectController::urlRedirectAction';

/**
 * Controllers that belong to the kernel rather than to a Nest module; a route's `_controller` names one. Today
 * the redirect the router answers when only the path with its trailing slash toggled exists.
 */
@Injectable()
export class NativeControllers {
  private readonly controllers = new Map<string, NativeController>([[REDIRECT_CONTROLLER, urlRedirectAction]]);

  get(name: string): NativeController | undefined {
    return this.controllers.get(name);
  }

  register(name: string, controller: NativeController): void {
    this.controllers.set(name, controller);
  }
}

/** Redirects to `path` on the request's own scheme and host, keeping the query string: 301 when permanent. */
export function urlRedirectAction(request: KernelRequest, args: Record<string, unknown>): KernelResponse {
  const path = String(args.path ?? '/');
  const qs = request.queryString;
  const location = `${request.schemeAndHttpHost}${path}${qs ? `?${qs}` : ''}`;
  return KernelResponse.redirect(location, args.permanent === true ? 301 : 302);
}
