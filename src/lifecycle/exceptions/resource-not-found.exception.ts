/**
 * The router found no route for a path. Its stack holds the matcher's frame and its caller's only: the router wraps it
 * in a NotFoundHttpException whose stack holds the whole path, and every unmatched URL throws one, so capturing and
 * formatting the kernel's frames a second time was a large share of a debug 404's cost (BENCHMARKS.md).
 */
export class ResourceNotFoundException extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 2;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'ResourceNotFoundException';
  }
}
