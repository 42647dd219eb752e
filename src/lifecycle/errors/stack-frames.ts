/** How V8 starts each frame line of a stack. */
const FRAME_LINE = '\n    at ';

/**
 * The frame lines of a throwable's stack (from the first `\n    at `), without the header V8 put before them:
 * `Class: message`, where the message may hold text of the request (a JSON body's snippet in a parse error) with
 * lines that look like frames. The search starts after the message, so such a line is never taken for the place the
 * throwable was thrown. '' when the stack has no V8 frame.
 */
export function stackFrames(error: Error): string {
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const message = typeof error.message === 'string' ? error.message : '';
  const at = message === '' ? -1 : stack.indexOf(message);
  const start = stack.indexOf(FRAME_LINE, at === -1 ? 0 : at + message.length);
  return start === -1 ? '' : stack.slice(start);
}
