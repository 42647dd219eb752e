import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { contextOf } from './kernel-symbols.js';
import type { KernelRequest } from './http/kernel-request.js';

/** A request attribute in a handler: `@RequestAttribute('_route') route: string`; no name: the KernelRequest. */
export const RequestAttribute = createParamDecorator(
  (name: string | undefined, execution: ExecutionContext): unknown => {
    const context = contextOf(execution.switchToHttp().getRequest<object>());
    if (!context) return undefined;
    const request: KernelRequest = context.request;
    if (name === undefined) return request;
    if (name === '_locale') return request.locale;
    return request.attributes[name];
  },
);
