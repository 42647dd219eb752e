import { MASK } from '../../lifecycle/redaction/redactor.js';
import type { RequestData } from '../collectors/request.collector.js';

/** Headers curl writes itself, or that describe one connection rather than the request. */
const LEFT_TO_CURL = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
]);

export interface CurlCommand {
  command: string;
  /** Header names and URL parameters whose values the profiler masked: the command holds the mask, not the value. */
  masked: string[];
  /** The recorded body was cut (the profiler keeps its start): the command sends only that. */
  bodyCut: boolean;
}

/** A value as one shell word, in single quotes. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The request as recorded, as a curl command a developer pastes in a terminal: method, URL, headers (but those curl
 * sets itself), the body when there was one. Masked values stay masked; a comment line first names them, so that
 * nobody takes `******` for what was sent.
 */
export function curlCommand(
  method: string,
  url: string,
  request: Pick<RequestData, 'headers' | 'body'> | undefined,
): CurlCommand {
  const headers = Object.entries(request?.headers ?? {});
  const masked = [
    ...headers.filter(([, value]) => String(value).includes(MASK)).map(([name]) => name),
    ...maskedParameters(url),
  ];
  const flag = method === 'HEAD' ? ' --head' : method !== 'GET' || request?.body ? ` -X ${method}` : '';
  const parts = [`curl${flag} ${shellQuote(url)}`];
  for (const [name, value] of headers) {
    if (LEFT_TO_CURL.has(name)) continue;
    parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (headers.some(([name, value]) => name === 'accept-encoding' && /gzip|br|deflate/.test(String(value))))
    parts.push('--compressed');
  const body = bodyText(request);
  const bodyCut =
    body !== null &&
    request?.body?.parsed == null &&
    request?.body?.length != null &&
    Buffer.byteLength(body) < request.body.length;
  if (body !== null) {
    if (body.includes(MASK)) masked.push('body');
    parts.push(`--data-raw ${shellQuote(body)}`);
  }
  const notes = [
    ...(masked.length > 0 ? [`# Masked by the profiler (put the real values back): ${masked.join(', ')}`] : []),
    ...(bodyCut
      ? [`# The body is cut: the profiler kept its first ${Buffer.byteLength(body!)} of ${request!.body!.length} bytes`]
      : []),
  ];
  return { command: [...notes, parts.join(' \\\n  ')].join('\n'), masked, bodyCut };
}

/**
 * The body as recorded: a parsed form or JSON document (secret fields masked) written back in its content type, or
 * the start of a raw body.
 */
function bodyText(request: Pick<RequestData, 'body'> | undefined): string | null {
  const body = request?.body;
  if (!body) return null;
  if (body.parsed !== null && typeof body.parsed === 'object') {
    if (/urlencoded/i.test(body.contentType ?? ''))
      return new URLSearchParams(
        Object.entries(body.parsed as Record<string, unknown>).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ]),
      ).toString();
    return JSON.stringify(body.parsed);
  }
  return body.excerpt;
}

function maskedParameters(url: string): string[] {
  try {
    return [...new URL(url).searchParams].filter(([, value]) => value.includes(MASK)).map(([name]) => `?${name}`);
  } catch {
    return [];
  }
}
