import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's parser reports with a `clientError` (llhttp's error code and the bytes it was parsing). */
interface ParserError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

export interface ClientErrorLimits {
  /** Longest request-target accepted (bytes), as MAX_URL_LENGTH. */
  maxUrlLength: number;
  /** Largest header section Node reads (bytes), as MAX_HEADER_SIZE. */
  maxHeaderSize: number;
}

/**
 * Answers the requests Node's HTTP parser refuses before any request object exists, so they never reach the
 * kernel (and get no profile: there is no request to profile). Node's own handler answers them with a bare status
 * line; this one says why, and tells a request line over the header limit (a URL far over MAX_URL_LENGTH, which the
 * kernel would have answered 414 had Node let it through) from a header section that is too large (431).
 */
export function handleClientErrors(server: Server, limits: ClientErrorLimits): void {
  server.on('clientError', (error: ParserError, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, message] = describe(error, limits);
    socket.end(plainResponse(status, message));
  });
}

/** Node's parser errors (llhttp's codes) and the answer each gets. */
const ANSWERS: Record<string, [number, string]> = {
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The chunk extensions of the request body are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time.'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'The request has both Content-Length and Transfer-Encoding.'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'The request has an invalid Transfer-Encoding.'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'The request has an invalid Content-Length.'],
  HPE_INVALID_HEADER_TOKEN: [400, 'The request has an invalid header field.'],
  HPE_INVALID_METHOD: [400, 'The request method is invalid.'],
  HPE_INVALID_URL: [400, 'The request-target is invalid.'],
  HPE_INVALID_VERSION: [400, 'The HTTP version is invalid.'],
};

function describe(error: ParserError, limits: ClientErrorLimits): [number, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const line = requestLine(error.rawPacket);
    if (line.complete ? line.length > limits.maxUrlLength : line.length > 0) {
      return [414, `The request URL is longer than ${Math.min(limits.maxUrlLength, limits.maxHeaderSize)} bytes.`];
    }
    return [431, `The request's header section is larger than ${limits.maxHeaderSize} bytes.`];
  }
  return (
    (error.code !== undefined && Object.hasOwn(ANSWERS, error.code) ? ANSWERS[error.code] : undefined) ?? [
      400,
      'The request could not be parsed as HTTP/1.1.',
    ]
  );
}

/**
 * The request line, as far as the packet shows: up to its CRLF (complete), or the whole packet when no CRLF came
 * yet (the line alone overflowed the header limit). A packet that does not start with the request line (it came
 * in an earlier chunk) tells nothing: length 0.
 */
function requestLine(packet: Buffer | undefined): { length: number; complete: boolean } {
  if (!packet || !/^[A-Z]+ /.test(packet.subarray(0, 16).toString('latin1'))) return { length: 0, complete: false };
  const end = packet.indexOf('\r\n');
  return end < 0 ? { length: packet.length, complete: false } : { length: end, complete: true };
}

/** A complete HTTP/1.1 response that closes the connection (the parser cannot go on after an error). */
function plainResponse(status: number, message: string): string {
  const body = `${status} ${STATUS_CODES[status] ?? 'Error'}: ${message}\n`;
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Connection: close\r\n' +
    'Content-Type: text/plain; charset=utf-8\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    '\r\n' +
    body
  );
}
