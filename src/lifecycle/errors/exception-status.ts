import { HttpException } from '@nestjs/common';
import { KernelHttpException } from '../exceptions/kernel-http.exception.js';
import { RequestException } from '../exceptions/request.exception.js';
import { ValidationFailedException } from '../exceptions/validation-failed.exception.js';

/** The HTTP status a throwable answers with: its own when it has one (ours, Nest's, http-errors'), else 500. */
export function statusOf(error: unknown): number {
  if (error instanceof KernelHttpException) return error.statusCode;
  if (error instanceof HttpException) return error.getStatus();
  const candidate = error as { status?: unknown; statusCode?: unknown; expose?: unknown } | null;
  const status = candidate?.status ?? candidate?.statusCode;
  // http-errors (Express middleware) mark their errors with `expose`.
  return typeof status === 'number' && status >= 400 && status < 600 && candidate?.expose !== undefined ? status : 500;
}

/** The headers a throwable asks for (Allow on 405, Retry-After on 503). */
export function headersOf(error: unknown): Record<string, string> {
  if (error instanceof KernelHttpException) return error.headers;
  return {};
}

/** The chain of a throwable through `cause`, outermost first, cycles cut. */
export function exceptionChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && !seen.has(current) && chain.length < 32) {
    chain.push(current);
    seen.add(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** A throwable's class name (`typeof` for non-errors). */
export function classOf(error: unknown): string {
  return error instanceof Error ? error.constructor.name : typeof error;
}

/** A throwable's message (its string form for non-errors). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return '[unprintable]';
  }
}

/** The validation violations somewhere in the chain, as problem+json lists them; undefined when none. */
export function problemViolations(error: unknown): Array<{ property: string; messages: string[] }> | undefined {
  const failure = exceptionChain(error).find(
    (e): e is ValidationFailedException => e instanceof ValidationFailedException,
  );
  return failure?.violations.map(({ property, constraints }) => ({ property, messages: Object.values(constraints) }));
}

/**
 * The message a client may always read: a request exception's (somewhere in a 4xx's chain) describes the client's
 * own input (`Invalid Host "bad host!!".`), so it is stated even where debug details are withheld. Undefined otherwise.
 */
export function clientMessageOf(error: unknown): string | undefined {
  const status = statusOf(error);
  if (status < 400 || status >= 500) return undefined;
  const cause = exceptionChain(error).find((e): e is RequestException => e instanceof RequestException);
  return cause?.message;
}
