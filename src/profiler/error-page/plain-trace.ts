/** What a plain-text trace needs of an exception: its place in the chain, class, message and frames. */
export interface TraceSource {
  position: number;
  count: number;
  class: string;
  message: string;
  frames: readonly { function: string; file: string; line: number; column: number }[];
}

/** `[i/n] Class: message` then one `at function (file:line:column)` per frame: ready to copy. */
export function plainTrace(e: TraceSource): string {
  const head = e.count > 1 ? `[${e.position}/${e.count}] ${e.class}: ${e.message}` : `${e.class}: ${e.message}`;
  return [head, ...e.frames.map((f) => `    at ${f.function} (${f.file}:${f.line}:${f.column})`)].join('\n');
}
