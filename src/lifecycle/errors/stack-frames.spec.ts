import { stackFrames } from './stack-frames.js';

describe('stackFrames', () => {
  const withStack = (message: string, stack: string): Error => Object.assign(new Error(message), { stack });

  it('is the frame lines below the header', () => {
    const error = withStack('boom', 'Error: boom\n    at a (file:///app/dist/a.js:1:2)\n    at b (node:events:10:3)');
    expect(stackFrames(error)).toBe('\n    at a (file:///app/dist/a.js:1:2)\n    at b (node:events:10:3)');
  });

  it('skips lines of the message that look like frames (a parse error quoting a request body)', () => {
    const message = `Unexpected token 'x', "[x\n at file://evil/a.js:1:1" is not valid JSON`;
    const error = withStack(
      message,
      `SyntaxError: ${message}\n    at JSON.parse (<anonymous>)\n    at parse (file:///app/node_modules/body-parser/lib/types/json.js:92:19)`,
    );
    expect(stackFrames(error)).toBe(
      '\n    at JSON.parse (<anonymous>)\n    at parse (file:///app/node_modules/body-parser/lib/types/json.js:92:19)',
    );
    const indented = 'no route\n    at file://evil/b.js:2:2';
    expect(stackFrames(withStack(indented, `Error: ${indented}\n    at real (/app/dist/r.js:3:4)`))).toBe(
      '\n    at real (/app/dist/r.js:3:4)',
    );
  });

  it('searches the whole stack when the message is not in it (changed after the throw), and is empty without frames', () => {
    const error = withStack('later message', 'Error: first message\n    at a (/app/dist/a.js:1:2)');
    expect(stackFrames(error)).toBe('\n    at a (/app/dist/a.js:1:2)');
    expect(stackFrames(withStack('', 'Error\n    at a (/app/dist/a.js:1:2)'))).toBe('\n    at a (/app/dist/a.js:1:2)');
    expect(stackFrames(withStack('x', 'Error: x'))).toBe('');
    expect(stackFrames(Object.assign(new Error('x'), { stack: undefined }))).toBe('');
  });
});
