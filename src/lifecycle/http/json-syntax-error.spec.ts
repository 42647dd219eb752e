import { jsonSyntaxReason } from './json-syntax-error.js';

/** V8's own message for `body`, as body-parser passes it on. */
function parserMessage(body: string): string {
  try {
    JSON.parse(body);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${body} parses`);
}

describe('jsonSyntaxReason', () => {
  it.each([
    ['a short body, quoted whole', '{"password":SEKRIT"}', 12],
    [
      'a long body, quoted around the error',
      `{"email":"someone@example.com","password":SEKRIT"${',"x":1'.repeat(10)}}`,
      42,
    ],
    ['a long body, quoted from its start', `{"password":SEKRIT"${',"x":1'.repeat(10)}}`, 12],
    ['a long body, quoted to its end', '{"email":"someone@example.com","password":SEKRIT"}', 42],
    ['a body that is one bare word', 'SEKRIT', 0],
  ])('removes the body text V8 quotes: %s, and keeps the position', (_, body, position) => {
    const message = parserMessage(body);
    expect(message).toContain('SEKRIT');
    const reason = jsonSyntaxReason(message, body);
    expect(reason).toBe(`Unexpected token in JSON at position ${position}`);
    expect(body[position]).toBe('S');
  });

  it('says only "Unexpected token" without the body, and never quotes it', () => {
    expect(jsonSyntaxReason(`Unexpected token 'S', ..."password":SEKRIT"... is not valid JSON`)).toBe(
      'Unexpected token in JSON',
    );
    expect(jsonSyntaxReason('Unexpected token \'"\', ""SEKRIT"" is not valid JSON', '"SEKRIT"')).toBe(
      'Unexpected token in JSON at position 0',
    );
    // A message of a shape not known here that quotes something: nothing of it is kept.
    expect(jsonSyntaxReason('Something new about "SEKRIT" in JSON (line 1 column 13)')).toBe('Not valid JSON');
  });

  it.each(['{"name": "tea",', '{"a":1} SEKRIT', '{"p":"a\u0001SEKRIT"}', '{SEKRIT:1}', '{"a":1,}', ''])(
    'keeps messages that quote nothing as they are (%j)',
    (body) => {
      const message = parserMessage(body);
      expect(message).not.toContain('SEKRIT');
      expect(jsonSyntaxReason(message, body)).toBe(message);
    },
  );
});
