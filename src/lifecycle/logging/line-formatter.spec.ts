import { MASK } from '../redaction/redactor.js';
import { LineFormatter, printableText } from './line-formatter.js';
import { LogEntry, type LogContext } from './log-entry.js';
import { LogLevel } from './log-level.js';

const format = (template: string, context: LogContext = {}, channel = 'request', level = LogLevel.INFO) =>
  new LineFormatter().format(new LogEntry(level, channel, template, context, Date.UTC(2026, 0, 2, 3, 4, 5)));

/** The printed line less its newline: the tests check that it holds no other line break. */
const line = (printed: string) => {
  expect(printed.endsWith('\n')).toBe(true);
  return printed.slice(0, -1);
};
const BREAKS = /[\n\r\v\f\u0085\u2028\u2029]/;

describe('LineFormatter', () => {
  it('prints a Monolog-style line: time, channel, level, interpolated message, context as JSON', () => {
    expect(format('Matched route "{route}".', { route: 'shop_home', method: 'GET' })).toBe(
      '[2026-01-02T03:04:05.000Z] request.INFO: Matched route "shop_home". {"route":"shop_home","method":"GET"}\n',
    );
    expect(format('Started', {}, 'app', LogLevel.ERROR)).toBe('[2026-01-02T03:04:05.000Z] app.ERROR: Started\n');
  });

  it('masks secrets in the message, in context values by key, nested, and in exception messages', () => {
    const printed = format('Matched route "{route}" for {request_uri} by {password} with {body}', {
      route: 'login',
      request_uri: 'http://shop.test/login?access_token=AT-1&password=PW-1&page=2',
      password: 'PW-2',
      body: { user: { password: 'PW-3', email: 'a@example.com' }, items: [{ card_number: 'PW-4' }] },
      headers: { authorization: 'Bearer PW-5', accept: 'text/html' },
      exception: new Error('No route found for "GET http://shop.test/x?token=PW-6"'),
      referer: 'https://user:PW-7@partner.example/',
      payment: 'sk_live_PW8abcdefgh',
      list: ['?token=PW-9', null, ''],
      empty_password: '',
    });
    for (let i = 1; i <= 9; i++) expect(printed).not.toContain(`PW-${i}`);
    expect(printed).not.toContain('PW8');
    expect(printed).toContain(
      `for http://shop.test/login?access_token=${MASK}&password=${MASK}&page=2 by ${MASK} with {"user":{"password":"${MASK}","email":"a@example.com"},"items":[{"card_number":"${MASK}"}]}`,
    );
    expect(printed).toContain(`"headers":{"authorization":"${MASK}","accept":"text/html"}`);
    expect(printed).toContain(
      `"exception":{"class":"Error","message":"No route found for \\"GET http://shop.test/x?token=${MASK}\\""}`,
    );
    expect(printed).toContain(`"referer":"https://user:${MASK}@partner.example/"`);
    expect(printed).toContain(`"list":["?token=${MASK}",null,""]`);
    expect(printed).toContain('"empty_password":""');
  });

  it('masks a secret quoted into the message by an exception', () => {
    const message = 'No route found for "GET http://shop.test/x?token=abc\'SECRET"';
    const printed = format('Uncaught Exception {class}: "{message}" at {file} line {line}', {
      class: 'NotFoundHttpException',
      message,
      file: 'a.ts',
      line: 3,
      exception: new Error(message),
    });
    expect(printed).not.toContain('SECRET');
    expect(printed).toContain(
      `request.INFO: Uncaught Exception NotFoundHttpException: "No route found for "GET http://shop.test/x?token=${MASK}"" at a.ts line 3 {`,
    );
  });

  it('keeps cycles, BigInt and class instances printable', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    expect(line(format('x', { cyclic, n: 10n, when: new Date(0) }))).toContain(
      '{"cyclic":{"name":"a","self":"[circular]"},"n":10,"when":"1970-01-01T00:00:00.000Z"}',
    );
  });

  const FORGED = '[2026-01-01T00:00:00.000Z] security.INFO: User "admin@example.com" logged in []';
  it.each([
    ['\\n', '\n', '\\n'],
    ['\\r', '\r', '\\r'],
    ['\\r\\n', '\r\n', '\\r\\n'],
    ['vertical tab', '\u000b', '\\u000b'],
    ['form feed', '\f', '\\f'],
    ['NEL (C1)', '\u0085', '\\u0085'],
    ['U+2028', '\u2028', '\\u2028'],
    ['U+2029', '\u2029', '\\u2029'],
    ['an escape sequence', '\u001b[2K\u001b[1A', '\\u001b[2K\\u001b[1A'],
    ['a CSI (C1)', '\u009b2K', '\\u009b2K'],
    ['NUL', '\0', '\\u0000'],
    ['DEL', '\u007f', '\\u007f'],
    ['a tab', '\t', '\\t'],
    ['a right-to-left override', '\u202e', '\\u202e'],
  ])(
    'prints an entry with %s in its message, channel, context keys and values as exactly one line',
    (_, c, escaped) => {
      const forged = `x${c}${FORGED}`;
      const printed = line(
        format(
          `Denied ${forged} {who}`,
          { [`key${forged}`]: `value${forged}`, nested: { [c]: [c] }, who: forged },
          `chan${c}nel`,
        ),
      );
      expect(printed).not.toMatch(BREAKS);
      expect(printed).not.toContain(c);
      expect(
        printed.startsWith(
          `[2026-01-02T03:04:05.000Z] chan${escaped}nel.INFO: Denied x${escaped}[2026-01-01T00:00:00.000Z] security.INFO: User`,
        ),
      ).toBe(true);
      // The context is still JSON, with the characters back in place once parsed.
      const context = JSON.parse(printed.slice(printed.indexOf(' {"key') + 1));
      expect(context[`key${forged}`]).toBe(`value${forged}`);
      expect(context.nested).toEqual({ [c]: [c] });
    },
  );

  it('escapes control characters that the redaction would not touch and leaves other text alone', () => {
    expect(line(format('café – 東京 \\n 🙂', { s: 'naïve 🙂' }))).toBe(
      '[2026-01-02T03:04:05.000Z] request.INFO: café – 東京 \\n 🙂 {"s":"naïve 🙂"}',
    );
  });
});

describe('printableText', () => {
  it('redacts and keeps on one line what is printed outside a log entry', () => {
    expect(printableText("GET /x?token=abc'SECRET\n[2026-11-26] security.INFO: forged")).toBe(
      'GET /x?token=******\\n[2026-11-26] security.INFO: forged',
    );
  });
});
