import type { ExcerptLine } from './source-resolver.js';

export interface FlattenedFrame {
  /** `Class.method`, `function`, or `(anonymous)`. */
  function: string;
  /** Relative to the project root when inside it. */
  file: string;
  line: number;
  column: number;
  vendor: boolean;
  excerpt: ExcerptLine[] | null;
}

/** One exception of a chain, ready for the error page, the JSON problem and the profiler. */
export interface FlattenedException {
  /** `[i/n]`: n for the outermost, 1 for the innermost. */
  position: number;
  count: number;
  class: string;
  message: string;
  statusCode: number;
  statusText: string;
  frames: FlattenedFrame[];
  /**
   * How many of its last frames are the last frames of the exception before it in the chain (the one that wrapped
   * it): the error page lists them once, there. 0 for the outermost.
   */
  sharedFrames: number;
  /** The code around the line that threw: the first frame whose source can be read, preferably the app's. */
  excerpt: { file: string; line: number; lines: ExcerptLine[] } | null;
}
