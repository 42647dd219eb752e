import { SetMetadata } from '@nestjs/common';

export const HTTP_CACHE_METADATA = 'shopkernel:http-cache';

export interface HttpCacheOptions {
  /** Seconds a cache may reuse the page (`max-age`). */
  maxAge: number;
  /** Shared caches may keep it too (`public`); default `private`. */
  public?: boolean;
  /** Request headers the page depends on (`Vary`). */
  vary?: string[];
}

/**
 * HTTP caching of a page (Symfony's #[Cache]): Cache-Control and Vary from these options, an ETag of the body, and a
 * 304 without body when the client's If-None-Match already has it. Applied by the HttpCacheListener.
 */
export const HttpCache = (options: HttpCacheOptions): MethodDecorator => SetMetadata(HTTP_CACHE_METADATA, options);
