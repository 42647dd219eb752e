import { Injectable } from '@nestjs/common';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent } from '../kernel.events.js';

const BODYLESS_HEADERS = ['content-type', 'content-length', 'transfer-encoding'];

/**
 * Response preparation (Symfony's ResponseListener, Response::prepare): a charset on every text type, a
 * Content-Type for a body that has none, no body (nor body headers) on 1xx/204/304, no body but the right
 * Content-Length on HEAD, and `Cache-Control: no-cache, private` on a response that says nothing of caching.
 */
@Injectable()
export class ResponseListener {
  @KernelListener(KernelEvents.RESPONSE, { priority: 0 })
  onKernelResponse(event: ResponseEvent): void {
    const response = event.response;
    if (response.isEmpty) {
      for (const name of BODYLESS_HEADERS) response.removeHeader(name);
      if (!response.streamed && response.body !== undefined) response.body = undefined;
    } else {
      const type = response.contentType;
      if (!type) {
        if (!response.streamed && response.body !== undefined && response.body.length > 0) {
          response.setHeader('Content-Type', 'text/html; charset=utf-8');
        }
      } else if (/^text\//i.test(type) && !/charset=/i.test(type)) {
        response.setHeader('Content-Type', `${type}; charset=utf-8`);
      }
      if (event.request.method === 'HEAD' && !response.streamed && response.body !== undefined) {
        response.setHeader('Content-Length', Buffer.byteLength(response.body));
        response.body = undefined;
      }
    }
    if (
      !response.hasHeader('cache-control') &&
      !response.hasHeader('expires') &&
      !response.hasHeader('etag') &&
      !response.hasHeader('last-modified') &&
      response.status !== 301
    ) {
      response.setHeader('Cache-Control', 'no-cache, private');
    }
  }
}
