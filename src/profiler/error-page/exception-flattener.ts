import { Injectable } from '@nestjs/common';
import { parse } from 'error-stack-parser-es/lite';
import { STATUS_CODES } from 'node:http';
import { classOf, exceptionChain, messageOf, statusOf } from '../../lifecycle/errors/exception-status.js';
import type { FlattenedException, FlattenedFrame } from './flattened-exception.js';
import { SourceResolver } from './source-resolver.js';

const MAX_FRAMES = 60;

/** Turns a throwable and its `cause` chain into FlattenedExceptions, outermost first, frames source-mapped. */
@Injectable()
export class ExceptionFlattener {
  constructor(private readonly sources: SourceResolver) {}

  flatten(throwable: unknown): FlattenedException[] {
    const chain = exceptionChain(throwable);
    return chain.map((error, index) => this.flattenOne(error, chain.length - index, chain.length));
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
      excerpt: withSource && withSource.excerpt ? { file: withSource.file, line: withSource.line, lines: withSource.excerpt } : null,
    };
  }

  private frames(error: Error): FlattenedFrame[] {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(error, { allowEmpty: true });
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
