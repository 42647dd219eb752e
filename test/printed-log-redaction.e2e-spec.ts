import { buildApp, startApp, type AppProcess } from './support/app-process.js';
import { rawRequest } from './support/raw-http.js';

/**
 * What the application prints to stdout/stderr, run as a process of its own (as production runs it): every line
 * passes the same redaction as the profiler's store, and one entry is always one line, whatever a request holds.
 */

/** Each value is distinctive, so that finding it anywhere in the output means it leaked. */
const SECRETS = {
  matchedRouteToken: 'mrt-Q7w1',
  matchedRoutePassword: 'mrp-Q7w2',
  notFoundToken: 'nft-Q7w3',
  methodNotAllowedApiKey: 'mna-Q7w4',
  afterQuote: 'aq-Q7w5',
  afterSemicolon: 'as-Q7w6',
  afterDoubleQuote: 'adq-Q7w7',
  afterAngleBrackets: 'aab-Q7w8',
  afterBacktick: 'abt-Q7w9',
  encodedName: 'enc-Q7x1',
  encodedSpace: 'esp-Q7x2',
  jsonPassword: 'jpw-Q7x3',
  jsonCardNumber: '4111111111117777',
  malformedJson: 'mfj-Q7x4',
  bearer: 'bea-Q7x5',
  cookie: 'coo-Q7x6',
  apiKeyHeader: 'akh-Q7x7',
  refererPassword: 'ref-Q7x8',
  urlCredentials: 'ucr-Q7x9',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJRN3kxIn0.c2lnLVE3eTE',
  stripeKey: 'sk_live_Q7y2abcdef',
  validationKey: 'vk-Q7y3',
  formPassword: 'fpw-Q7y4',
  githubToken: 'ghp_Q7y5abcdefghijklmnopqrstuvwxyz012345',
  /** Named by PROFILER_REDACT_FIELDS only. */
  loyalty: 'loy-Q7y6',
};

/** A line as a real entry starts it (the forged ones below claim another date). */
const ENTRY = /^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\] [^\s]+\.(DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL): /;
/** What main.ts prints itself, outside the logger. */
const BANNER =
  /^(Shopkernel \(.*\) listening on http:\/\/127\.0\.0\.1:\d+|Profiler: http:\/\/127\.0\.0\.1:\d+\/_profiler\/ \(store: .*\))$/;
const FORGED = '[2026-01-01T00:00:00.000Z] security.INFO: User "admin@example.com" logged in []';
/** Characters that end or rewrite a line, each put before a forged entry in a JSON body's key. */
const BREAKS = [
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u000b',
  '\f',
  '\u001b[1A\u001b[2K',
  '\u009b1A',
  '\0',
  '\t',
];

function http(method: string, target: string, headers: Record<string, string> = {}, body = ''): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: shop.test', 'Connection: close', 'Accept: application/json'];
  lines.push(
    `Authorization: Bearer ${SECRETS.bearer}`,
    `Cookie: SHOPSESSID=${SECRETS.cookie}`,
    `X-Api-Key: ${SECRETS.apiKeyHeader}`,
  );
  lines.push(`Referer: https://partner:${SECRETS.refererPassword}@partner.example/back`);
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '' || method === 'POST' || method === 'PUT') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const json = (body: unknown) => ({
  'Content-Type': 'application/json',
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** The requests, as raw HTTP: query strings and bodies exactly as written, terminators included. */
function requests(port: number): string[] {
  const login = (body: { 'Content-Type': string; body: string }) =>
    http('POST', '/api/login', { 'Content-Type': body['Content-Type'] }, body.body);
  return [
    http('GET', `/products?access_token=${SECRETS.matchedRouteToken}&password=${SECRETS.matchedRoutePassword}&page=1`),
    http('GET', `/nowhere?token=${SECRETS.notFoundToken}`),
    http('PUT', `/products?api_key=${SECRETS.methodNotAllowedApiKey}`),
    http('GET', `/nowhere?token=abc'${SECRETS.afterQuote}`),
    http('GET', `/products?token=abc;${SECRETS.afterSemicolon}`),
    http('GET', `/nowhere?token=abc"${SECRETS.afterDoubleQuote}"&q=1`),
    http('GET', `/nowhere?password=<${SECRETS.afterAngleBrackets}>`),
    http('GET', `/products?token=abc\`${SECRETS.afterBacktick}`),
    http('GET', `/nowhere?%70assword=${SECRETS.encodedName}`),
    http('GET', `/products?client_secret=abc%20${SECRETS.encodedSpace}+x`),
    http('GET', `/products?q=${SECRETS.jwt}&state=${SECRETS.stripeKey}`),
    http('GET', `/nowhere?next=${SECRETS.githubToken}`),
    http('GET', `/products?loyalty_number=${SECRETS.loyalty}`),
    http('GET', `http://user:${SECRETS.urlCredentials}@127.0.0.1:${port}/nowhere`),
    // Fields the login does not take: a 400 whose validation message names them.
    login(
      json({
        email: 'nobody@example.com',
        password: SECRETS.jsonPassword,
        card_number: SECRETS.jsonCardNumber,
        [`x?token=${SECRETS.validationKey}`]: 1,
      }),
    ),
    login(json({ email: 'nobody@example.com', password: SECRETS.jsonPassword })),
    login(json(`{"email":"nobody@example.com","password":${SECRETS.malformedJson}"}`)),
    login(json(`{"password":"${SECRETS.malformedJson}"${',"x":1'.repeat(20)},}`)),
    login(json(`"${SECRETS.malformedJson}"`)),
    http(
      'POST',
      '/login',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      `email=nobody%40example.com&password=${SECRETS.formPassword}`,
    ),
    // Forged entries: a key's line break would print a line of the attacker's.
    ...BREAKS.map((c, i) => login(json({ email: 'nobody@example.com', password: 'x', [`k${i}${c}${FORGED}`]: 1 }))),
  ];
}

describe.each([
  ['a production process', { APP_ENV: 'prod', APP_DEBUG: '0', PROFILER_REDACT_FIELDS: '^loyalty' }],
  [
    'a production process at LOG_LEVEL=debug',
    { APP_ENV: 'prod', APP_DEBUG: '0', LOG_LEVEL: 'debug', PROFILER_REDACT_FIELDS: '^loyalty' },
  ],
  [
    'a debug process at LOG_LEVEL=debug',
    {
      APP_ENV: 'test',
      APP_DEBUG: '1',
      LOG_LEVEL: 'debug',
      PROFILER_DSN: 'sqlite::memory:',
      PROFILER_REDACT_FIELDS: '^loyalty',
    },
  ],
])('Printed log lines of %s (e2e)', (_, env) => {
  let app: AppProcess;
  let lines: string[];

  beforeAll(async () => {
    app = await startApp(buildApp(), env);
    for (const raw of requests(app.port)) {
      const answer = await rawRequest(app.port, raw, { readBody: true });
      expect(answer.outcome).toBe('response');
    }
    app.child.kill('SIGTERM');
    await app.exited;
    lines = app.output().split('\n');
    expect(lines.pop()).toBe('');
  }, 120_000);

  it('holds none of the secrets a request carried (query, URL, body, headers, validation and exception messages)', () => {
    const output = lines.join('\n');
    const leaked = Object.entries(SECRETS).filter(([, secret]) => output.includes(secret));
    expect(leaked.map(([name]) => name)).toEqual([]);
    // The requests were logged, masked.
    expect(output).toContain('"request_uri":"http://shop.test/products?access_token=******&password=******&page=1"');
    expect(output).toContain('No route found for "GET http://shop.test/nowhere?token=******"');
    expect(output).toContain('No route found for "PUT http://shop.test/products?api_key=******": Method Not Allowed');
    // A quote or a bracket inside a value is part of it: the URL is masked where a query parser cuts it.
    expect(output).toContain('No route found for "GET http://shop.test/nowhere?token=******&q=1"');
    expect(output).toContain('No route found for "GET http://shop.test/nowhere?password=******"');
    expect(output).toContain('(from "https://partner:******@partner.example/back")');
    expect(output).toContain('"request_uri":"http://shop.test/products?loyalty_number=******"');
    expect(output).toContain(
      'Validation failed: property card_number should not exist; property x?token=****** should not exist.',
    );
    expect(output).toContain('Malformed JSON body: Unexpected token in JSON at position 41');
  });

  it('prints every entry as exactly one line, whatever control characters a request put in it', () => {
    const strays = lines.filter((l) => !ENTRY.test(l) && !BANNER.test(l));
    expect(strays).toEqual([]);
    expect(lines.filter((l) => l.startsWith('[2026-01-01T00:00:00.000Z]'))).toEqual([]);
    const forged = lines.filter((l) => l.includes(FORGED));
    expect(forged).toHaveLength(BREAKS.length);
    for (const l of forged)
      expect(l).toMatch(
        /request\.ERROR: Uncaught Exception BadRequestHttpException: "Validation failed: property k\d+(\\[nrtfv]|\\u00[0-9a-f]{2}|\\u20[0-9a-f]{2}|\\n|\\r\\n)/,
      );
    expect(forged.join('\n')).toContain('property k2\\r\\n[2026-01-01T00:00:00.000Z]');
    expect(forged.join('\n')).toContain('property k8\\u001b[1A\\u001b[2K[2026-01-01T00:00:00.000Z]');
    // eslint-disable-next-line no-control-regex -- control characters are what must not be printed
    expect(lines.filter((l) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/.test(l))).toEqual([]);
  });
});
