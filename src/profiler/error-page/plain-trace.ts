import { escapeText } from '../collectors/log-message-html.js';
import { oneByteText } from './one-byte.js';

/** What a plain-text trace needs of an exception: its place in the chain, class, message and frames. */
export interface TraceSource {
  position: number;
  count: number;
  class: string;
  message: string;
  frames: readonly { function: string; file: string; line: number; column: number }[];
  /** Its last frames that the exception wrapping it ends with too: written as `... N more`, as Java does. */
  sharedFrames?: number;
}

/** The frame lines of frozen frame lists (the ExceptionFlattener's, one per call path), kept with them. */
const frameLines = new WeakMap<object, string>();
/** The same, escaped for HTML. */
const frameLinesHtml = new WeakMap<object, string>();

/**
 * `[i/n] Class: message` then one `at function (file:line:column)` per frame, the frames shared with the exception
 * before it as `... N more`: ready to copy.
 */
export function plainTrace(e: TraceSource): string {
  const head = traceHead(e);
  if (e.frames.length === 0) return head;
  const shared = e.sharedFrames ?? 0;
  if (shared > 0) return `${head}\n${frameText(e.frames.slice(0, e.frames.length - shared))}\n    ... ${shared} more`;
  let lines = frameLines.get(e.frames);
  if (lines === undefined) {
    lines = frameText(e.frames);
    if (Object.isFrozen(e.frames)) {
      lines = oneByteText(lines);
      frameLines.set(e.frames, lines);
    }
  }
  return `${head}\n${lines}`;
}

function traceHead(e: TraceSource): string {
  return e.count > 1 ? `[${e.position}/${e.count}] ${e.class}: ${e.message}` : `${e.class}: ${e.message}`;
}

function frameText(frames: TraceSource['frames']): string {
  return frames.map((f) => `    at ${f.function} (${f.file}:${f.line}:${f.column})`).join('\n');
}

/** The trace as the error page's `<pre>` holds it, escaped; the frame lines of a call path escaped once. */
export function plainTraceHtml(e: TraceSource): string {
  if ((e.sharedFrames ?? 0) > 0 || e.frames.length === 0 || !Object.isFrozen(e.frames))
    return escapeText(plainTrace(e));
  let lines = frameLinesHtml.get(e.frames);
  if (lines === undefined) {
    lines = oneByteText(escapeText(frameText(e.frames)));
    frameLinesHtml.set(e.frames, lines);
  }
  return `${escapeText(traceHead(e))}\n${lines}`;
}
