/** Where the profiler's pages are mounted (ProfilerController). */
export const PROFILER_PATH = '/_profiler';

/** Whether a request path is one of the profiler's own pages (`/_profiler`, `/_profiler/…`). */
export function isProfilerPage(path: string): boolean {
  return path.startsWith(PROFILER_PATH) && (path.length === PROFILER_PATH.length || path[PROFILER_PATH.length] === '/');
}
