import type { KernelRequest } from '../http/kernel-request.js';

/**
 * Turns a route parameter into what the handler works with (a product from its slug, ...). A converter is an
 * ordinary provider of its feature module, named in `@ConvertParam`; `ParamConverterListener` calls it at
 * kernel.controller.
 */
export abstract class ParamConverter<T = unknown> {
  /** The value, or undefined when there is none: the request then ends in a 404 with `notFoundMessage`. */
  abstract convert(value: string, request: KernelRequest): Promise<T | undefined>;

  /** The 404's message, e.g. `Product "<slug>" not found.` */
  abstract notFoundMessage(value: string): string;
}
