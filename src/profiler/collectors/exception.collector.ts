import { Injectable } from '@nestjs/common';
import type { KernelContext } from '../../lifecycle/kernel-context.js';
import { ExceptionFlattener, sharedSuffix } from '../error-page/exception-flattener.js';
import type { FlattenedException, FlattenedFrame } from '../error-page/flattened-exception.js';
import { plainTrace } from '../error-page/plain-trace.js';
import { SourceResolver } from '../error-page/source-resolver.js';
import { DataCollector, type PanelBadge } from './data-collector.js';
import { Redactor } from '../../lifecycle/redaction/redactor.js';

/** A frame as stored: its code excerpt is read again when the panel is opened. */
export type StoredFrame = Omit<FlattenedFrame, 'excerpt'>;

export type StoredException = Omit<FlattenedException, 'frames' | 'excerpt' | 'sharedFrames'> & {
  frames: StoredFrame[];
};

export interface ExceptionData {
  exceptions: StoredException[];
}

/** A frame as written to the store: `[function, file, line, column, vendor (1 or 0)]` (a 404's chain has fifty). */
type FrameTuple = [string, string, number, number, 0 | 1];

/** The tuples of frozen frame lists (the flattener's, one per call path), made once. */
const tuplesOf = new WeakMap<readonly FlattenedFrame[], FrameTuple[]>();

function toTuples(frames: readonly FlattenedFrame[]): FrameTuple[] {
  const known = tuplesOf.get(frames);
  if (known) return known;
  const tuples = frames.map((f): FrameTuple => [f.function, f.file, f.line, f.column, f.vendor ? 1 : 0]);
  if (Object.isFrozen(frames)) tuplesOf.set(frames, tuples);
  return tuples;
}

/**
 * The exception that decided the response, as a source-mapped chain. Frames are stored without their code: the
 * panel reads the excerpts when it is opened, as the error page does.
 */
@Injectable()
export class ExceptionCollector extends DataCollector<ExceptionData> {
  readonly name = 'exception';
  readonly label = 'Exception';
  override readonly priority = 280;
  override readonly deferrable = true;
  override readonly emptyText = 'No exception was thrown while handling this request.';

  constructor(
    private readonly flattener: ExceptionFlattener,
    private readonly sources: SourceResolver,
  ) {
    super();
  }

  override lateCollect(context: KernelContext): ExceptionData | undefined {
    if (context.exception === undefined) return undefined;
    return {
      exceptions: this.flattener.flatten(context.exception).map((e) => ({
        position: e.position,
        count: e.count,
        class: e.class,
        message: Redactor.text(e.message),
        statusCode: e.statusCode,
        statusText: e.statusText,
        frames: toTuples(e.frames) as unknown as StoredFrame[],
      })),
    };
  }

  /** Each exception's class and message. */
  override searchText(data: ExceptionData): string[] {
    return data.exceptions.map((e) => `${e.class}: ${e.message}`);
  }

  /** Frames stored as tuples back to objects (profiles stored before keep their objects). */
  override expand(stored: unknown): ExceptionData {
    const data = stored as ExceptionData;
    return {
      exceptions: data.exceptions.map((e) => ({
        ...e,
        frames: e.frames.map((f) => {
          if (!Array.isArray(f)) return f;
          const [fn, file, line, column, vendor] = f as unknown as FrameTuple;
          return { function: fn, file, line, column, vendor: vendor === 1 };
        }),
      })),
    };
  }

  override badge(data: ExceptionData): PanelBadge {
    return { text: String(data.exceptions.length), kind: 'error' };
  }

  override panel(data: ExceptionData): object {
    const exceptions = data.exceptions.map((e) => {
      const frames = e.frames.map((f) => ({
        ...f,
        excerpt: f.vendor ? null : this.sources.excerpt(this.sources.absolutePath(f.file), f.line),
      }));
      const withSource = frames.find((f) => !f.vendor && f.excerpt) ?? frames.find((f) => f.excerpt);
      return {
        ...e,
        frames,
        excerpt: withSource?.excerpt
          ? { file: withSource.file, line: withSource.line, lines: withSource.excerpt }
          : null,
      };
    });
    exceptions.forEach((e, i) =>
      Object.assign(e, { sharedFrames: i === 0 ? 0 : sharedSuffix(e.frames, exceptions[i - 1].frames) }),
    );
    return { exceptions, traces: exceptions.map(plainTrace) };
  }
}
