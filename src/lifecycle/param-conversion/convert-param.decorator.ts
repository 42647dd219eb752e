import type { Type } from '@nestjs/common';
import type { ParamConverter } from './param-converter.js';

export const CONVERT_PARAM_METADATA = 'shopkernel:convert-param';

export interface ParamConversion {
  /** The request attribute the converted value is stored in (read it with `@RequestAttribute(attribute)`). */
  attribute: string;
  /** The route parameter converted. */
  param: string;
  converter: Type<ParamConverter>;
}

/**
 * At kernel.controller, the route parameter `from` (default: `attribute`) goes through `converter` and the result is
 * put in the request attribute `attribute`; no result is a 404 through the kernel, and the handler is not called:
 *
 * ```ts
 * @Get(':slug')
 * @ConvertParam('product', ProductBySlugConverter, { from: 'slug' })
 * show(@RequestAttribute('product') product: Product) { ... }
 * ```
 *
 * Stackable; conversions run in parallel. The module that uses it imports `ParamConversionModule` and provides
 * the converter.
 */
export function ConvertParam(
  attribute: string,
  converter: Type<ParamConverter>,
  options: { from?: string } = {},
): MethodDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const existing: ParamConversion[] = Reflect.getMetadata(CONVERT_PARAM_METADATA, method) ?? [];
    Reflect.defineMetadata(
      CONVERT_PARAM_METADATA,
      [...existing, { attribute, param: options.from ?? attribute, converter }],
      method,
    );
    return descriptor;
  };
}
