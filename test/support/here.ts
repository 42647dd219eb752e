/**
 * The line V8 runs where this is called from; a query issued in the same statement must be recorded with it as
 * its caller. (Jest runs ts-jest's output, whose lines differ from the .ts file's; dist/ maps back through source maps.)
 */
export function here(): number {
  const prepare = Error.prepareStackTrace;
  Error.prepareStackTrace = (_error, sites) => sites;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  Error.captureStackTrace(holder, here);
  const line = holder.stack![0].getLineNumber()!;
  Error.prepareStackTrace = prepare;
  return line;
}
