import type { Response } from 'express';
import type { HeaderValue } from './kernel-response.js';

/**
 * The response as kernel.response listeners see it: status and headers are the Express response's own (nothing
 * has been written yet), the body is the one about to be written. A streamed response (written in pieces, or
 * whose headers were flushed by writeHead) has no body here: listeners may change its headers only.
 */
export class ResponseHandle {
  private bodyChanged = false;

  constructor(
    readonly raw: Response,
    private currentBody: string | Buffer | undefined,
    readonly streamed: boolean,
  ) {}

  get status(): number {
    return this.raw.statusCode;
  }

  set status(code: number) {
    this.raw.statusCode = code;
  }

  get body(): string | Buffer | undefined {
    return this.currentBody;
  }

  set body(body: string | Buffer | undefined) {
    if (this.streamed) throw new Error('The body of a streamed response cannot be replaced.');
    this.currentBody = body;
    this.bodyChanged = true;
  }

  get isBodyChanged(): boolean {
    return this.bodyChanged;
  }

  /** The body as text (for HTML and JSON listeners); undefined when streamed or empty. */
  get text(): string | undefined {
    const body = this.currentBody;
    if (body === undefined) return undefined;
    return typeof body === 'string' ? body : body.toString('utf8');
  }

  getHeader(name: string): string | undefined {
    const value = this.raw.getHeader(name);
    if (value === undefined) return undefined;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }

  setHeader(name: string, value: HeaderValue): void {
    this.raw.setHeader(name, value);
  }

  /** Adds a value to a header that may repeat (Set-Cookie), keeping the values already set. */
  appendHeader(name: string, value: string): void {
    this.raw.appendHeader(name, value);
  }

  hasHeader(name: string): boolean {
    return this.raw.hasHeader(name);
  }

  removeHeader(name: string): void {
    this.raw.removeHeader(name);
  }

  get headers(): Record<string, HeaderValue | undefined> {
    return this.raw.getHeaders() as Record<string, HeaderValue | undefined>;
  }

  get contentType(): string | undefined {
    return this.getHeader('content-type');
  }

  get isHtml(): boolean {
    return /^text\/html\b/i.test(this.contentType ?? '');
  }

  get isRedirect(): boolean {
    return [201, 301, 302, 303, 307, 308].includes(this.status) && this.hasHeader('location');
  }

  get isEmpty(): boolean {
    return this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200);
  }

  get isError(): boolean {
    return this.status >= 400;
  }
}
