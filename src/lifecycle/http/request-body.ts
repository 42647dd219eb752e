import bodyParser from 'body-parser';
import type { Request, RequestHandler, Response } from 'express';
import { BadRequestHttpException } from '../exceptions/bad-request-http.exception.js';
import { KernelHttpException } from '../exceptions/kernel-http.exception.js';
import { PayloadTooLargeHttpException } from '../exceptions/payload-too-large-http.exception.js';
import { UnsupportedMediaTypeHttpException } from '../exceptions/unsupported-media-type-http.exception.js';
import { requireUtf8Body, unsupportedCharsetMessage } from './body-encoding.js';
import { rejectDeepJson } from './json-depth.js';
import { jsonSyntaxReason } from './json-syntax-error.js';

/** body-parser's error: an http-errors error with a `type` naming what went wrong. */
interface BodyParserError {
  type?: string;
  status?: number;
  message: string;
  stack?: string;
  body?: unknown;
  charset?: string;
}

/**
 * Reads a request's JSON or form body into `req.body` (body-parser), once a route has matched: an unknown path with
 * a malformed body is a 404, as in Symfony, where the body is parsed when asked for. A body that cannot be read is
 * a client error (4xx) thrown to kernel.exception.
 */
export class RequestBodyReader {
  private readonly parsers: RequestHandler[];

  constructor(limit: string | number) {
    this.parsers = [
      bodyParser.json({ limit, strict: true, verify: verifyJson }),
      bodyParser.urlencoded({ limit, extended: true, parameterLimit: 1000, verify: requireUtf8Body }),
    ];
  }

  /** Whether a request has a body: type-is's `hasBody`, which body-parser asks before anything else. */
  static hasBody(req: Request): boolean {
    return (
      req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length'] ?? NaN))
    );
  }

  async read(req: Request, res: Response): Promise<void> {
    for (const parser of this.parsers) {
      const error = await new Promise<unknown>((resolve) => parser(req, res, resolve));
      if (error) throw bodyError(error as BodyParserError);
    }
  }
}

/** A JSON body's checks, in order: its bytes are UTF-8 before the nesting limit reads them as such. */
function verifyJson(req: unknown, res: unknown, body: Buffer, charset: string): void {
  requireUtf8Body(req, res, body, charset);
  rejectDeepJson(req, res, body);
}

/** body-parser's errors as the kernel's client errors, without the copy of the body it attaches to them. */
function bodyError(error: BodyParserError): unknown {
  if (error.type !== 'entity.parse.failed') delete error.body;
  switch (error.type) {
    case 'entity.parse.failed':
      return new BadRequestHttpException(`Malformed JSON body: ${withoutBodyText(error)}`, error);
    case 'entity.too.large':
    case 'parameters.too.many':
      return new PayloadTooLargeHttpException(error.message, error);
    case 'charset.unsupported':
      return new UnsupportedMediaTypeHttpException(unsupportedCharsetMessage(error.charset ?? ''), error);
    case 'encoding.unsupported':
      return new UnsupportedMediaTypeHttpException(error.message, error);
    case 'request.aborted':
    case 'request.size.invalid':
    case 'entity.verify.failed':
      return new BadRequestHttpException(error.message, error);
    default:
      // e.g. qs's "The input exceeded the depth" for a form nested too deep (type querystring.parse.rangeError)
      if (error.status === 400) return new BadRequestHttpException(error.message, error);
      return typeof error.status === 'number' && error.status >= 400 && error.status < 500
        ? new KernelHttpException(error.status, error.message, error)
        : error;
  }
}

/**
 * A JSON syntax error made safe to show, log and store: the parser's message without the body text it quotes (also
 * in its stack), and without body-parser's copy of the whole body. Returns the new message.
 */
function withoutBodyText(error: BodyParserError): string {
  const original = error.message;
  const reason = jsonSyntaxReason(original, typeof error.body === 'string' ? error.body : undefined);
  error.message = reason;
  if (typeof error.stack === 'string') error.stack = error.stack.replace(original, () => reason);
  delete error.body;
  return reason;
}
