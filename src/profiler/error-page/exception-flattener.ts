import { Injectable } from '@nestjs/common';
import { parse, parseStack } from 'error-stack-parser-es/lite';
import { STATUS_CODES } from 'node:http';
import { classOf, exceptionChain, messageOf, statusOf } from '../../lifecycle/errors/exception-status.js';
import { stackFrames } from '../../lifecycle/errors/stack-frames.js';
import type { FlattenedException, FlattenedFrame } from './flattened-exception.js';
import { SourceResolver } from './source-resolver.js';

const MAX_FRAMES = 60;
/** Distinct call paths whose parsed, source-mapped frames are kept. */
const MAX_CACHED_TRACES = 500;

/**
 * Turns a throwable and its `cause` chain into FlattenedExceptions, outermost first, frames source-mapped.
 *
 * Both the error page and the Exception panel flatten the request's exception: the result is kept per throwable
 * (weakly). And most exceptions of a running application are thrown on a few call paths (every unmatched URL is
 * the router's same 404): frames are kept per stack text below the message, so parsing, source-mapping and reading
 * excerpts happen once per call path, not once per request. A source edit restarts the process in watch mode,
 * which empties the cache with it.
 */
@Injectable()
export class ExceptionFlattener {
  private readonly flattened = new WeakMap<object, FlattenedException[]>();
  private readonly traces = new Map<string, readonly FlattenedFrame[]>();

  constructor(private readonly sources: SourceResolver) {}

  flatten(throwable: unknown): FlattenedException[] {
    const cacheable = typeof throwable === 'object' && throwable !== null;
    const known = cacheable ? this.flattened.get(throwable) : undefined;
    if (known) return known;
    const chain = exceptionChain(throwable);
    const result = chain.map((error, index) => this.flattenOne(error, chain.length - index, chain.length));
    for (let i = 1; i < result.length; i++)
      result[i].sharedFrames = sharedSuffix(result[i].frames, result[i - 1].frames);
    if (cacheable) this.flattened.set(throwable, result);
    return result;
  }

  private flattenOne(error: unknown, position: number, count: number): FlattenedException {
    const statusCode = statusOf(error);
    const frames = error instanceof Error ? this.frames(error) : [];
    const withSource = frames.find((f) => !f.vendor && f.excerpt) ?? frames.find((f) => f.excerpt);
    return {
      position,
      count,
      class: classOf(error),
      message: messageOf(error),
      statusCode,
      statusText: STATUS_CODES[statusCode] ?? 'Error',
      frames,
      sharedFrames: 0,
      excerpt:
        withSource && withSource.excerpt
          ? { file: withSource.file, line: withSource.line, lines: withSource.excerpt }
          : null,
    };
  }

  private frames(error: Error): FlattenedFrame[] {
    // Below the message: a message's lines that look like frames are neither parsed as frames nor part of the key.
    const key = stackFrames(error);
    if (key === '') return this.parseFrames(() => parse(error, { allowEmpty: true }));
    const cached = this.traces.get(key);
    if (cached) return cached as FlattenedFrame[];
    const frames = this.parseFrames(() => parseStack(key));
    for (const frame of frames) Object.freeze(frame);
    if (this.traces.size >= MAX_CACHED_TRACES) this.traces.delete(this.traces.keys().next().value!);
    this.traces.set(key, Object.freeze(frames));
    return frames;
  }

  private parseFrames(parser: () => ReturnType<typeof parse>): FlattenedFrame[] {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parser();
    } catch {
      return [];
    }
    return parsed.slice(0, MAX_FRAMES).map((frame) => {
      const location = this.sources.locate(frame.file ?? 'unknown', frame.line ?? 0, frame.col ?? 0);
      const vendor = this.sources.isVendor(location.file);
      return {
        function: frame.function || '(anonymous)',
        file: this.sources.relativePath(location.file),
        line: location.line,
        column: location.column,
        vendor,
        excerpt: vendor ? null : this.sources.excerpt(location.file, location.line),
      };
    });
  }
}

/** How many frames the two stacks end with alike (the call path below the point where they part). */
export function sharedSuffix(
  inner: readonly Omit<FlattenedFrame, 'excerpt' | 'vendor'>[],
  outer: readonly Omit<FlattenedFrame, 'excerpt' | 'vendor'>[],
): number {
  let n = 0;
  while (n < inner.length && n < outer.length) {
    const a = inner[inner.length - 1 - n];
    const b = outer[outer.length - 1 - n];
    if (a.file !== b.file || a.line !== b.line || a.column !== b.column || a.function !== b.function) break;
    n++;
  }
  return n;
}
