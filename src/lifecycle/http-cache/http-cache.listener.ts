import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type ControllerEvent, type ResponseEvent } from '../kernel.events.js';
import { HTTP_CACHE_METADATA, type HttpCacheOptions } from './http-cache.decorator.js';

/**
 * The HTTP caching step: kernel.controller reads the handler's `@HttpCache` into `_http_cache`; kernel.response
 * (priority 8, before ResponseListener's default `no-cache, private`) sets Cache-Control, Vary and a weak ETag of the
 * body on a successful GET/HEAD, and turns the response into a bodiless 304 when If-None-Match names that ETag.
 * The ETag covers the application's page, not the debug toolbar injected later.
 */
@Injectable()
export class HttpCacheListener {
  @KernelListener(KernelEvents.CONTROLLER, { priority: 10 })
  onKernelController(event: ControllerEvent): void {
    const method = event.handler?.method;
    const options: HttpCacheOptions | undefined = method ? Reflect.getMetadata(HTTP_CACHE_METADATA, method) : undefined;
    if (options) event.request.attributes._http_cache = options;
  }

  @KernelListener(KernelEvents.RESPONSE, { priority: 8 })
  onKernelResponse(event: ResponseEvent): void {
    const options = event.request.attributes._http_cache as HttpCacheOptions | undefined;
    const request = event.request;
    const response = event.response;
    if (
      !options ||
      (request.method !== 'GET' && request.method !== 'HEAD') ||
      response.status !== 200 ||
      response.streamed
    )
      return;
    response.setHeader('Cache-Control', `${options.public ? 'public' : 'private'}, max-age=${options.maxAge}`);
    if (options.vary?.length) response.setHeader('Vary', options.vary.join(', '));
    const body = response.body;
    if (body === undefined) return;
    const etag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
    response.setHeader('ETag', etag);
    if (matches(request.header('if-none-match'), etag)) {
      response.status = 304;
      response.body = undefined;
    }
  }
}

/** If-None-Match: `*` or a list of (weak or strong) tags, compared weakly (RFC 9110 §13.1.2). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}
