export type CallSites = NodeJS.CallSite[];
/** Any function: V8 compares a frame's function with it by identity. */
export type StackEntry = (...args: never[]) => unknown;

const returnCallSites = (_error: Error, sites: CallSites): CallSites => sites;

/** The stack below `above` (which V8 leaves out, with every frame above it) as V8 CallSites, at most `depth`. */
export function callSites(depth: number, above: StackEntry): CallSites {
  const holder: { stack?: unknown } = {};
  const limit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  try {
    Error.stackTraceLimit = depth;
    Error.prepareStackTrace = returnCallSites;
    Error.captureStackTrace(holder, above);
    return Array.isArray(holder.stack) ? (holder.stack as CallSites) : [];
  } finally {
    Error.stackTraceLimit = limit;
    Error.prepareStackTrace = prepare;
  }
}
