import { SetMetadata } from '@nestjs/common';

export const ROUTE_NAME_METADATA = 'shopkernel:route-name';

/**
 * Names a route: `@Get(':token') @RouteName('_profiler')`. Without it a route is named after its controller and
 * method (`ProductsController.show` → `products_show`).
 */
export const RouteName = (name: string): MethodDecorator => SetMetadata(ROUTE_NAME_METADATA, name);

/** `ProductsController.showProduct` → `products_show_product`. */
export function defaultRouteName(handlerName: string): string {
  const [cls = 'app', method = 'index'] = handlerName.split('.');
  const snake = (s: string): string =>
    s
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase();
  return `${snake(cls.replace(/Controller$/, '') || cls)}_${snake(method)}`;
}

export const TRAILING_SLASH_METADATA = 'shopkernel:trailing-slash';

/**
 * The route's canonical path ends with a slash (`/_profiler/`). Nest strips trailing slashes from every path;
 * the kernel's adapter puts this one back, for Express and for the router, so that the path without the
 * slash is redirected to it.
 */
export const TrailingSlash = (): MethodDecorator => SetMetadata(TRAILING_SLASH_METADATA, true);

export const DEBUG_ROUTE_METADATA = 'shopkernel:debug-route';

/**
 * The route exists only for clients allowed to see debug details (DebugAccess: debug mode, allowed address and
 * host): for anyone else the router matches as if it were not there, so every method on its path answers what an
 * unknown path answers (no 301, no 405 with Allow), and CORS never applies to it. The profiler's routes are such.
 */
export const DebugRoute = (): MethodDecorator => SetMetadata(DEBUG_ROUTE_METADATA, true);
