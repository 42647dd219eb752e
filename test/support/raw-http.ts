import { connect } from 'node:net';

/** How a raw exchange ended. */
export type RawOutcome = 'response' | 'closed' | 'reset' | 'timeout';

export interface RawResponse {
  outcome: RawOutcome;
  /** The status of the first response, when one arrived (null otherwise). */
  status: number | null;
  /** The first response's header lines (lower-cased names; repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** The first response's body, when `readBody` and the response said how long it is (or closed the connection). */
  body: string;
  /** Every byte received, as latin1 (for the odd assertion on the raw answer). */
  raw: string;
}

export interface RawRequestOptions {
  /** Give up after this long (the outcome is then `timeout`). Default 5000 ms. */
  timeoutMs?: number;
  /** Half-close the connection after the last chunk (a truncated body: the client says no more is coming). */
  endAfterWrite?: boolean;
  /** Wait for the whole first response body (Content-Length, chunked, or close), not only its head. */
  readBody?: boolean;
}

const HEAD_END = '\r\n\r\n';

/**
 * Sends bytes over a fresh TCP connection, exactly as given (no HTTP client in the way to fix them), and reads the
 * first response. Chunks are written in order; the connection is destroyed once the response is read. Never
 * rejects: a connection closed or reset without a response is an outcome, not an error.
 */
export function rawRequest(
  port: number,
  chunks: string | Buffer | Array<string | Buffer>,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const { timeoutMs = 5000, endAfterWrite = false, readBody = false } = options;
  const parts = Array.isArray(chunks) ? chunks : [chunks];
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (outcome: RawOutcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(received, outcome));
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('connect', () => {
      for (const part of parts) socket.write(part);
      if (endAfterWrite) socket.end();
    });
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data]);
      if (isComplete(received, readBody)) finish('response');
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        received.length > 0 ? 'response' : error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : 'closed',
      ),
    );
    socket.on('close', () => finish(received.length > 0 ? 'response' : 'closed'));
  });
}

/** Whether the first response has arrived: its head (and, with readBody, its body as announced). */
function isComplete(data: Buffer, readBody: boolean): boolean {
  const text = data.toString('latin1');
  const headEnd = text.indexOf(HEAD_END);
  if (headEnd < 0) return false;
  if (!readBody) return true;
  const head = text.slice(0, headEnd).toLowerCase();
  const body = text.slice(headEnd + HEAD_END.length);
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) return Buffer.byteLength(body, 'latin1') >= Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/.test(head)) return /(^|\r\n)0\r\n\r\n$/.test(body);
  return /^http\/1\.1 (1\d\d|204|304) /.test(head);
}

function parseResponse(data: Buffer, outcome: RawOutcome): RawResponse {
  const raw = data.toString('latin1');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
  if (!status) return { outcome: raw === '' ? outcome : 'response', status: null, headers: {}, body: '', raw };
  const headEnd = raw.indexOf(HEAD_END);
  const head = headEnd < 0 ? raw : raw.slice(0, headEnd);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = headEnd < 0 ? '' : raw.slice(headEnd + HEAD_END.length);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return {
    outcome: 'response',
    status: Number(status[1]),
    headers,
    body: Buffer.from(body, 'latin1').toString('utf8'),
    raw,
  };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
