import { Injectable } from '@nestjs/common';
import { contextKey, type KernelContext } from '../../lifecycle/kernel-context.js';
import { CONTROLLER_CALL } from '../profiler.interceptor.js';
import { MASK, Redactor } from '../../lifecycle/redaction/redactor.js';
import { requestTrace, type TraceContext } from '../tracing/trace-context.js';
import type { ResponseHandle } from '../../lifecycle/http/response-handle.js';
import { STATUS_CODES } from 'node:http';
import { RedirectTrail } from '../redirects/redirect-trail.js';
import { REDIRECT_ORIGIN, type RedirectOrigin } from '../redirects/redirect-origin.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { DataCollector, type PanelBadge, type ToolbarBlock } from './data-collector.js';
import { statusClass } from './response.collector.js';
import { toJsonSafe } from './json-safe.js';

/** Where a session module (the shop's) puts the session's attributes for the profiler. */
export const SESSION_ATTRIBUTES = contextKey<Record<string, unknown>>('shopkernel.profiler.session-attributes');

const BODY_EXCERPT = 2000;

export interface RequestData {
  method: string;
  url: string;
  scheme: string;
  host: string;
  path: string;
  queryString: string | null;
  query: unknown;
  route: string | null;
  routeParams: Record<string, unknown>;
  controller: string | null;
  attributes: Record<string, unknown>;
  locale: string;
  clientIp: string;
  remoteAddress: string | null;
  httpVersion: string;
  headers: Record<string, string>;
  cookies: { name: string; value: string }[];
  body: { contentType: string | null; length: number | null; parsed: unknown; excerpt: string | null } | null;
  session: Record<string, unknown> | null;
  xhr: boolean;
  /** The redirect this request followed (absent in profiles of older versions). */
  redirectedFrom?: RedirectOrigin | null;
  /** Its place in a W3C trace (absent in profiles of older versions). */
  trace?: TraceContext;
}

/** The request: method, URL, query, route and controller, headers, cookies, body summary, session. */
@Injectable()
export class RequestCollector extends DataCollector<RequestData> {
  readonly name = 'request';
  readonly label = 'Request';
  override readonly priority = 300;
  override readonly deferrable = true;

  constructor(private readonly redirects: RedirectTrail) {
    super();
  }

  /** Only the redirect cookie, read and written while the response can still carry a cookie. */
  override collect(context: KernelContext, response: ResponseHandle): undefined {
    this.redirects.follow(context, response);
    return undefined;
  }

  /** The route and controller, and the request's trace id and its parent's span id (finding a trace's profiles). */
  override searchText(data: RequestData): string[] {
    const { route, controller, trace } = data;
    return [route, controller, trace?.traceId, trace?.parentSpanId].filter((t): t is string => typeof t === 'string');
  }

  override lateCollect(context: KernelContext): RequestData {
    const request = context.request;
    const raw = request.raw;
    const attributes = request.attributes;
    const call = context.get(CONTROLLER_CALL);
    const { _route, _controller, _route_params, ...others } = attributes;
    return {
      method: request.method,
      url: request.maskedUri,
      scheme: request.scheme,
      host: request.httpHost,
      path: Redactor.url(request.pathInfo),
      queryString: request.queryString === null ? null : Redactor.url(`?${request.queryString}`).slice(1),
      query: toJsonSafe(raw.query ?? {}),
      route: _route ?? null,
      routeParams: (toJsonSafe(_route_params ?? {}) as Record<string, unknown>) ?? {},
      controller: call?.controller ?? _controller ?? null,
      attributes: toJsonSafe(others) as Record<string, unknown>,
      locale: request.locale,
      clientIp: request.clientIp,
      remoteAddress: raw.socket?.remoteAddress ?? null,
      httpVersion: raw.httpVersion,
      headers: Redactor.headers(raw.headers),
      cookies: parseCookieNames(raw.headers.cookie),
      body: bodySummary(raw.headers['content-type'], raw.headers['content-length'], (raw as { body?: unknown }).body),
      session: toJsonSafe(context.get(SESSION_ATTRIBUTES) ?? null) as Record<string, unknown> | null,
      xhr: request.isXmlHttpRequest,
      redirectedFrom: context.get(REDIRECT_ORIGIN) ?? null,
      trace: requestTrace(context),
    };
  }

  override toolbar(data: RequestData, profile: ProfileRecord): ToolbarBlock {
    const redirect = data.redirectedFrom ?? null;
    return {
      statusCode: profile.statusCode,
      statusClass: statusClass(profile.statusCode),
      route: data.route,
      redirect,
      rows: [
        { label: 'HTTP status', value: `${profile.statusCode} ${STATUS_CODES[profile.statusCode] ?? ''}`.trim() },
        { label: 'Method', value: data.method },
        { label: 'Route', value: data.route ?? '(none matched)' },
        { label: 'Controller', value: data.controller ?? '(none)' },
        ...(redirect
          ? [
              {
                label: 'Redirected from',
                value: `${redirect.method} ${redirect.path} (${redirect.token}, ${redirect.status})`,
                href: `/_profiler/${redirect.token}`,
              },
            ]
          : []),
      ],
    };
  }

  override badge(data: RequestData): PanelBadge | null {
    return data.route ? null : { text: 'no route', kind: 'warning' };
  }

  override panel(data: RequestData): object {
    return {
      ...data,
      overview: rows({
        URL: data.url,
        Path: data.path,
        'Query string': data.queryString ?? '',
        Scheme: data.scheme,
        Host: data.host,
        'HTTP version': data.httpVersion,
        'Client IP': data.clientIp,
        'Remote address': data.remoteAddress ?? '',
        Locale: data.locale,
        XMLHttpRequest: data.xhr ? 'yes' : 'no',
        ...(data.trace
          ? {
              'Trace id': data.trace.traceId,
              'Span id': data.trace.spanId,
              'Parent span id': data.trace.parentSpanId ?? '(none: the trace started here)',
            }
          : {}),
      }),
      queryRows: rows(data.query as Record<string, unknown>),
      routeRows: rows({ _route: data.route, _controller: data.controller, ...data.routeParams }),
      // The application's attributes (a converted entity) apart from the kernel's own (`_pagination`, `_locale`…).
      attributeRows: rows(Object.fromEntries(Object.entries(data.attributes).filter(([key]) => !key.startsWith('_')))),
      internalAttributeRows: rows(
        Object.fromEntries(Object.entries(data.attributes).filter(([key]) => key.startsWith('_'))),
      ),
      headerRows: rows(data.headers),
      cookieRows: data.cookies.map((c) => ({ key: c.name, value: c.value })),
      session: data.session ? rows(data.session) : null,
      body: data.body
        ? {
            rows: rows({ 'Content-Type': data.body.contentType ?? '', 'Content-Length': data.body.length ?? '' }),
            parsed: data.body.parsed === null ? null : JSON.stringify(data.body.parsed, null, 2),
            excerpt: data.body.excerpt,
          }
        : null,
    };
  }
}

/** Key/value rows for the panel tables; non-strings as JSON. */
export function rows(values: Record<string, unknown> | null | undefined): { key: string; value: string }[] {
  if (!values || typeof values !== 'object') return [];
  return Object.entries(values).map(([key, value]) => ({
    key,
    value: typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
  }));
}

/** Cookie names with their values masked: a cookie is a credential until proven otherwise. */
function parseCookieNames(header: string | undefined): { name: string; value: string }[] {
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return { name: eq === -1 ? pair : pair.slice(0, eq).trim(), value: MASK };
    });
}

function bodySummary(
  contentType: string | undefined,
  contentLength: string | undefined,
  body: unknown,
): RequestData['body'] {
  const length = contentLength !== undefined && /^\d+$/.test(contentLength) ? Number(contentLength) : null;
  if (!contentType && length === null && body === undefined) return null;
  let excerpt: string | null = null;
  let parsed: unknown = null;
  if (typeof body === 'string') excerpt = body.slice(0, BODY_EXCERPT);
  else if (Buffer.isBuffer(body)) excerpt = `[${body.length} bytes]`;
  else if (body !== undefined && body !== null && typeof body === 'object' && Object.keys(body).length > 0)
    parsed = toJsonSafe(body, { maxString: BODY_EXCERPT });
  return { contentType: contentType ?? null, length, parsed, excerpt };
}
