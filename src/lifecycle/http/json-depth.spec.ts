import { jsonDepthExceeds, MAX_JSON_DEPTH, rejectDeepJson } from './json-depth.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('jsonDepthExceeds', () => {
  it('counts nested arrays and objects', () => {
    expect(jsonDepthExceeds(bytes('[[[1]]]'), 3)).toBe(false);
    expect(jsonDepthExceeds(bytes('[[[1]]]'), 2)).toBe(true);
    expect(jsonDepthExceeds(bytes('{"a":{"b":[1]}}'), 3)).toBe(false);
    expect(jsonDepthExceeds(bytes('{"a":{"b":[1]}}'), 2)).toBe(true);
  });

  it('measures depth, not the number of brackets', () => {
    expect(jsonDepthExceeds(bytes('[' + '[],'.repeat(1000) + '[]]'), 2)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(bytes(JSON.stringify({ a: '[[[[{{{{' })), 1)).toBe(false);
    expect(jsonDepthExceeds(bytes(JSON.stringify({ a: 'say \\"[[[[\\"' })), 1)).toBe(false);
    expect(jsonDepthExceeds(bytes(JSON.stringify({ a: '\\' }) + '[[['), 3)).toBe(false);
    expect(jsonDepthExceeds(bytes(JSON.stringify({ a: '\\' }) + '[[['), 2)).toBe(true);
  });

  it('copes with text that is not valid JSON (unbalanced, closing first)', () => {
    expect(jsonDepthExceeds(bytes(']]]]' + '['.repeat(5)), 4)).toBe(true);
    expect(jsonDepthExceeds(bytes('['.repeat(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('rejectDeepJson', () => {
  it('throws a request exception with the limit in its message', () => {
    expect(() => rejectDeepJson(null, null, bytes('['.repeat(MAX_JSON_DEPTH + 1)))).toThrow(
      `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`,
    );
    expect(() =>
      rejectDeepJson(null, null, bytes('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))),
    ).not.toThrow();
  });
});
