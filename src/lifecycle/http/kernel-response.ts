export type HeaderValue = string | number | string[];

/**
 * A response a listener or native controller produces before anything is written to the socket. The kernel
 * writes it to the Express response, which then passes kernel.response like every other answer.
 */
export class KernelResponse {
  readonly headers: Record<string, HeaderValue>;

  constructor(
    public body: string | Buffer | undefined = undefined,
    public status = 200,
    headers: Record<string, HeaderValue> = {},
  ) {
    this.headers = { ...headers };
  }

  static redirect(location: string, status = 302): KernelResponse {
    return new KernelResponse(undefined, status, { Location: location });
  }

  static json(
    value: unknown,
    status = 200,
    headers: Record<string, HeaderValue> = {},
    type = 'application/json',
  ): KernelResponse {
    return new KernelResponse(JSON.stringify(value), status, { 'Content-Type': `${type}; charset=utf-8`, ...headers });
  }

  static html(html: string, status = 200, headers: Record<string, HeaderValue> = {}): KernelResponse {
    return new KernelResponse(html, status, { 'Content-Type': 'text/html; charset=utf-8', ...headers });
  }
}
