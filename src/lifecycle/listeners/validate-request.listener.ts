import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { ConflictingHeadersException } from '../exceptions/conflicting-headers.exception.js';
import { RequestHeaderFieldsTooLargeHttpException } from '../exceptions/request-header-fields-too-large-http.exception.js';
import { SuspiciousOperationException } from '../exceptions/suspicious-operation.exception.js';
import { UriTooLongHttpException } from '../exceptions/uri-too-long-http.exception.js';
import { MalformedRequestException } from '../exceptions/malformed-request.exception.js';
import { isValidHost } from '../http/host-name.js';
import { parsedTarget } from '../http/kernel-request.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type RequestEvent } from '../kernel.events.js';

/**
 * Request validation (Symfony's ValidateRequestListener): first the request's size limits (a request-target over
 * MAX_URL_LENGTH bytes is a 414, more header fields than MAX_HEADER_COUNT a 431: Node's server refuses a header
 * section over MAX_HEADER_SIZE itself, but silently drops fields beyond its maxHeadersCount, so the fields are
 * counted here, as received); then the Host must be a valid host name (and one of TRUSTED_HOSTS when set), and a
 * trusted proxy must not send Forwarded and X-Forwarded-For naming different clients. Those are client errors:
 * the kernel answers them with a 400 that repeats the message.
 */
@Injectable()
export class ValidateRequestListener {
  constructor(private readonly config: AppConfig) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 256 })
  onKernelRequest(event: RequestEvent): void {
    this.checkLimits(event);
    this.checkProtocol(event);
    const request = event.request;
    const host = request.rawHost.toLowerCase();
    if (host !== '' && !isValidHost(host)) {
      throw new SuspiciousOperationException(`Invalid Host "${request.rawHost}".`);
    }
    const trusted = this.config.trustedHosts;
    if (trusted.length > 0) {
      const hostname = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
      if (!trusted.some((pattern) => pattern.test(hostname)))
        throw new SuspiciousOperationException(`Untrusted Host "${hostname}".`);
    }
    this.checkForwardedHeaders(event);
  }

  private checkLimits(event: RequestEvent): void {
    const raw = event.request.raw;
    // Node decodes the request-target byte for byte (latin1), so its length is its size in bytes.
    const target = raw.originalUrl ?? raw.url ?? '';
    if (target.length > this.config.maxUrlLength) {
      throw new UriTooLongHttpException(
        `The request URL is ${target.length} bytes long; at most ${this.config.maxUrlLength} are accepted.`,
      );
    }
    const fields = raw.rawHeaders.length / 2;
    if (fields > this.config.maxHeaderCount) {
      throw new RequestHeaderFieldsTooLargeHttpException(
        `The request has ${fields} header fields; at most ${this.config.maxHeaderCount} are accepted.`,
      );
    }
  }

  /**
   * What Node's parser lets through but HTTP/1.1 forbids: a request line without a version (read as HTTP/0.9, which
   * has no header fields, yet this one has), and more than one Host field (RFC 9112 §3.2: a 400, since the proxies
   * in front may have routed by the other one), and a request-target that is not a URL (Node passes on any
   * absolute-form target, `GET http://[::1 HTTP/1.1` too).
   */
  private checkProtocol(event: RequestEvent): void {
    const raw = event.request.raw;
    if (raw.httpVersionMajor !== 1)
      throw new MalformedRequestException(
        `HTTP/${raw.httpVersion} is not supported: the request line must end with HTTP/1.0 or HTTP/1.1.`,
      );
    if (parsedTarget(raw) === undefined)
      throw new MalformedRequestException(`The request-target "${raw.originalUrl ?? raw.url}" is not a valid URL.`);
    let hosts = 0;
    for (let i = 0; i < raw.rawHeaders.length; i += 2) {
      if (raw.rawHeaders[i].length === 4 && raw.rawHeaders[i].toLowerCase() === 'host') hosts++;
    }
    if (hosts > 1)
      throw new SuspiciousOperationException(`The request has ${hosts} Host header fields; exactly one is allowed.`);
  }

  private checkForwardedHeaders(event: RequestEvent): void {
    const request = event.request;
    const forwarded = request.header('forwarded');
    const xff = request.header('x-forwarded-for');
    if (!forwarded || !xff || this.config.trustedProxies.length === 0) return;
    const trust = request.raw.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    if (!trust(request.raw.socket.remoteAddress ?? '', 0)) return;
    const fromForwarded = [...forwarded.matchAll(/for=(?:"?\[?)([^\]",;]+)/gi)].map((m) => stripPort(m[1]));
    const fromXff = xff.split(',').map((ip) => stripPort(ip.trim()));
    if (fromForwarded.join(',') !== fromXff.join(',')) {
      throw new ConflictingHeadersException(
        'The request has both a trusted "FORWARDED" header and a trusted "X_FORWARDED_FOR" header, conflicting each other. ' +
          'You should either configure your proxy to remove one of them, or configure your project to distrust the offending one.',
      );
    }
  }
}

function stripPort(address: string): string {
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
  return (v4 ? v4[1] : address).toLowerCase();
}
