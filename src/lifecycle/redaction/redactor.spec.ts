import { MASK, Redactor } from './redactor.js';

describe('Redactor', () => {
  it('masks credential headers and keeps the others', () => {
    expect(
      Redactor.headers({
        authorization: 'Bearer abc',
        'proxy-authorization': 'Basic xyz',
        cookie: 'sid=1',
        'set-cookie': ['a=1', 'b=2'],
        'x-api-key': 'k',
        'x-auth-token': 't',
        'x-csrf-token': 'c',
        accept: 'text/html',
        'content-length': 12,
        'x-absent': undefined,
      }),
    ).toEqual({
      authorization: MASK,
      'proxy-authorization': MASK,
      cookie: MASK,
      'set-cookie': MASK,
      'x-api-key': MASK,
      'x-auth-token': MASK,
      'x-csrf-token': MASK,
      accept: 'text/html',
      'content-length': '12',
    });
  });

  it('gives a header name the same verdict every time (verdicts are kept by name), in any letter case', () => {
    for (let i = 0; i < 3; i++) {
      expect(
        Redactor.headers({
          Authorization: 'Bearer abc',
          'X-Debug-Token': 'a1b2c3',
          'X-Shop-Token': 't',
          Accept: '*/*',
        }),
      ).toEqual({
        Authorization: MASK,
        'X-Debug-Token': 'a1b2c3',
        'X-Shop-Token': MASK,
        Accept: '*/*',
      });
    }
  });

  it.each([
    'password',
    'newPassword',
    'passwd',
    'client_secret',
    'access_token',
    'api_key',
    'cardNumber',
    'cvv',
    'cvc',
    'pin',
    'privateKey',
  ])('treats %s as a secret field', (name) => {
    expect(Redactor.isSecretField(name)).toBe(true);
  });

  it.each(['username', 'email', 'quantity', 'sku', 'shipping', 'price'])(
    'does not treat %s as a secret field',
    (name) => {
      expect(Redactor.isSecretField(name)).toBe(false);
    },
  );

  it('masks secret query values and URL passwords inside text, and leaves the rest alone', () => {
    expect(Redactor.text('http://shop.test/reset?token=abc123&page=2&password=hunter2#top')).toBe(
      'http://shop.test/reset?token=******&page=2&password=******#top',
    );
    expect(Redactor.text('No route found for "GET http://h/x?api_key=k1&q=tea": 404')).toBe(
      'No route found for "GET http://h/x?api_key=******&q=tea": 404',
    );
    expect(Redactor.text('?%70assword=x')).toBe('?%70assword=******');
    expect(Redactor.text('?%zz=1&secret=')).toBe('?%zz=1&secret=');
    expect(Redactor.text('postgres://shop:s3cret@db:5432/shop and redis://:pw@cache')).toBe(
      'postgres://shop:******@db:5432/shop and redis://:******@cache',
    );
    expect(Redactor.text('user@example.com paid 2=2')).toBe('user@example.com paid 2=2');
    expect(Redactor.text('plain')).toBe('plain');
  });

  it.each([
    ["'", "?token=abc'SECRET"],
    [';', '?token=abc;SECRET'],
    ['"', '?token=abc"SECRET'],
    ['<', '?token=abc<SECRET'],
    ['>', '?token=abc>SECRET'],
    ['`', '?token=abc`SECRET'],
    ['%27', '?token=abc%27SECRET'],
    ['%26', '?token=abc%26SECRET'],
    ['%23', '?token=abc%23SECRET'],
    ['%20', '?token=abc%20SECRET'],
    ['+', '?token=abc+SECRET'],
    ['?', '?token=abc?SECRET'],
    ['=', '?token=abc=SECRET'],
    ['(', '?password=abc(SECRET'],
  ])('masks a query value up to where a query parser ends it, past %s', (_, text) => {
    expect(Redactor.text(text)).toBe(`?${text.slice(1, text.indexOf('=') + 1)}${MASK}`);
  });

  it('ends a masked query value at &, #, whitespace or the end, and gives back the quotes and brackets that close the text around it', () => {
    expect(Redactor.text('/x?token=abc&page=2')).toBe(`/x?token=${MASK}&page=2`);
    expect(Redactor.text('/x?token=abc#top')).toBe(`/x?token=${MASK}#top`);
    expect(Redactor.text('/x?token=abc next')).toBe(`/x?token=${MASK} next`);
    expect(Redactor.text('/x?token=abc\tnext\nline')).toBe(`/x?token=${MASK}\tnext\nline`);
    expect(Redactor.text('No route found for "GET http://x/?token=abc"')).toBe(
      `No route found for "GET http://x/?token=${MASK}"`,
    );
    expect(
      Redactor.text('No route found for "GET http://x/?token=abc\'SECRET": Method Not Allowed (Allow: POST)'),
    ).toBe(`No route found for "GET http://x/?token=${MASK}": Method Not Allowed (Allow: POST)`);
    expect(
      Redactor.text('Uncaught Exception X: "No route found for "GET http://x/?token=abc"SECRET"" at a.ts line 1'),
    ).toBe(`Uncaught Exception X: "No route found for "GET http://x/?token=${MASK}"" at a.ts line 1`);
    expect(Redactor.text("see (http://x/?token=abc'SECRET).")).toBe(`see (http://x/?token=${MASK}).`);
    expect(Redactor.text('<a href="/x?token=abc">')).toBe(`<a href="/x?token=${MASK}">`);
    // Punctuation alone is part of the value: a password's last `!` is not shown.
    expect(Redactor.text('?password=hunter2!')).toBe(`?password=${MASK}`);
    // A masked value hides the pairs inside it; an unmasked one is searched further.
    expect(Redactor.text('?token=a;password=b&q=1')).toBe(`?token=${MASK}&q=1`);
    expect(Redactor.text('?next=/a?token=b&q=1')).toBe(`?next=/a?token=${MASK}&q=1`);
    expect(Redactor.text('?q=tea;token=b')).toBe(`?q=tea;token=${MASK}`);
    expect(Redactor.text(`?token=${MASK}&q=1`)).toBe(`?token=${MASK}&q=1`);
  });

  it('masks the words of free text that hold a query or percent-encoding as URLs, on their decoded form', () => {
    expect(Redactor.text('fetch http://api.example/x?x"token=abc123 failed')).toBe(
      `fetch http://api.example/x?x%22token=${MASK} failed`,
    );
    expect(Redactor.text('No route found for "GET http://h/p?<token>=abc123": 404')).toBe(
      `No route found for "GET http://h/p?%3Ctoken%3E=${MASK}": 404`,
    );
    expect(Redactor.text('really? yes?')).toBe('really? yes?');
    expect(Redactor.text('went to /a%3Ftoken%3Dabc123 then left')).toBe(`went to /a%3Ftoken=${MASK} then left`);
    expect(Redactor.text('sent Bearer%20ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 twice')).toBe(
      `sent Bearer%20${MASK} twice`,
    );
    expect(Redactor.text('next=https%3A%2F%2Fu%3Apw1%40h')).toBe(`next=https://u:${MASK}@h`);
    expect(Redactor.text('caf%C3%A9 100% sure')).toBe('caf%C3%A9 100% sure');
    expect(Redactor.mayHoldSecret('a%3Db')).toBe(true);
  });

  it('judges a field name decoded too', () => {
    expect(Redactor.isSecretField('%70assword')).toBe(true);
    expect(Redactor.isSecretField('%2570assword')).toBe(true);
    expect(Redactor.isSecretField('x%22token')).toBe(true);
    expect(Redactor.isSecretField('%2Fpage')).toBe(false);
  });

  it('masks a URL password up to the last @ of its authority', () => {
    expect(Redactor.text('postgres://shop:p@ss:w0rd@db:5432/shop')).toBe(`postgres://shop:${MASK}@db:5432/shop`);
    expect(Redactor.text('redis://:a@b@cache/0 and http://host/x@y')).toBe(
      `redis://:${MASK}@cache/0 and http://host/x@y`,
    );
  });

  it.each([
    ['Stripe secret key', 'sk_live_51HxAbCdEfGh0123456789'],
    ['Stripe test key', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'],
    ['Stripe restricted key', 'rk_live_0123456789abcdef'],
    ['GitHub token', 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'],
    ['GitHub OAuth token', 'gho_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop'],
    ['Slack bot token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
    ['Slack user token', 'xoxp-123456789012-1234567890123'],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['GitLab token', 'glpat-xxxxXXXXxxxxXXXXxxxx'],
    ['npm token', 'npm_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'],
    ['unsigned JWT', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.'],
  ])('masks a %s in free text, whatever it is called', (_, secret) => {
    expect(Redactor.text(`paid with ${secret}, then "${secret}" (${secret})`)).toBe(
      `paid with ${MASK}, then "${MASK}" (${MASK})`,
    );
  });

  it('masks a PEM private key from its BEGIN line to its END line (or the end of the text)', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----';
    expect(Redactor.text(`key: ${key} done`)).toBe(`key: ${MASK} done`);
    expect(Redactor.text('x -----BEGIN PRIVATE KEY-----\nMIIE')).toBe(`x ${MASK}`);
    expect(Redactor.text('-----BEGIN PUBLIC KEY-----\nMIIB')).toBe('-----BEGIN PUBLIC KEY-----\nMIIB');
  });

  it('leaves look-alikes of secret values alone', () => {
    for (const text of [
      'task_live_1',
      'my-sk_live_',
      'sk_test_x',
      'AKIA',
      'AKIAIOSFODNN7EXAMPLEX',
      'eyJhbGciOiJIUzI1NiJ9',
      'desk_test_0123456789',
      'sku GH-123',
      'pk_live_0123456789',
      'xoxo-gossip-girl-forever',
      'npm_config_cache',
      'ghp_short',
    ]) {
      expect(Redactor.text(text)).toBe(text);
    }
  });

  it('masks secret-looking values in linear time, however they are repeated', () => {
    const runs = [
      'eyJ-'.repeat(200_000),
      `?token=${')'.repeat(500_000)}x`,
      '-----BEGIN PRIVATE KEY-----'.repeat(50_000),
      `${'a://'.repeat(200_000)}`,
    ];
    // Backtracking would take far longer than the test's timeout on these sizes; linear work takes milliseconds.
    for (const text of runs) expect(Redactor.text(text).length).toBeGreaterThan(0);
  });

  it.each([
    'STRIPE_SK',
    'GITHUB_PAT',
    'APP_KEY',
    'STRIPE_KEY_LIVE',
    'JWT_PRIVATE_KEY',
    'PRIVATE_TOKEN',
    'DB_PASSWORD',
    'SHOP_PAYMENT_SECRET',
  ])('treats the environment variable %s as a secret', (name) => {
    expect(Redactor.isSecretVariable(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'SKU_PREFIX', 'KEYBOARD', 'DATABASE_URL', 'PATTERN', 'LOG_LEVEL'])(
    'does not treat the environment variable %s as a secret',
    (name) => {
      expect(Redactor.isSecretVariable(name)).toBe(false);
    },
  );

  it('masks text of any length in linear time: a 2 MB URL of one letter run is done at once (was quadratic)', () => {
    const run = 'a'.repeat(2_000_000);
    const url = `http://shop.test/products?q=${run}@x`;
    expect(Redactor.text(url) === url).toBe(true);
    // The whole run is the scheme here (letters are scheme characters): still one pass.
    expect(Redactor.text(`${run}ftp://user:pw@host`).endsWith(`ftp://user:${MASK}@host`)).toBe(true);
    expect(Redactor.text(` ftp://user:pw@host ${run}=1`).startsWith(` ftp://user:${MASK}@host aaa`)).toBe(true);
  });

  it('takes extra field patterns from the configuration', () => {
    expect(Redactor.isSecretField('loyalty_number')).toBe(false);
    Redactor.configure([/loyalty/i]);
    try {
      expect(Redactor.isSecretField('loyalty_number')).toBe(true);
      expect(Redactor.text('/x?loyalty_number=42')).toBe(`/x?loyalty_number=${MASK}`);
    } finally {
      Redactor.configure([]);
    }
  });

  it('judges a text again once the configuration names more secret fields, and masks a secret every time it comes', () => {
    const text = '/x?loyalty_number=42';
    expect(Redactor.text(text)).toBe(text);
    expect(Redactor.text(text)).toBe(text);
    Redactor.configure([/loyalty/i]);
    try {
      expect(Redactor.text(text)).toBe(`/x?loyalty_number=${MASK}`);
    } finally {
      Redactor.configure([]);
    }
    expect(Redactor.text(text)).toBe(text);
    const secret = 'select 1 -- ghp_abcdefghijklmnopqrstuvwxyz0123';
    for (let i = 0; i < 3; i++) expect(Redactor.text(secret)).toBe(`select 1 -- ${MASK}`);
  });

  it('says a clean text holds no secret each time it comes, and a text with a token that it may, every time', () => {
    const clean = 'Matched route "product_show".';
    const token = 'Bearer sk_live_abcdefghijklmnopqrstuvwx';
    for (let i = 0; i < 3; i++) {
      expect(Redactor.mayHoldSecret(clean)).toBe(false);
      expect(Redactor.mayHoldSecret(token)).toBe(true);
      expect(Redactor.text(clean)).toBe(clean);
      expect(Redactor.text(token)).toBe(`Bearer ${MASK}`);
    }
    expect(Redactor.mayHoldSecret(`${clean} ghp_abcdefghijklmnopqrstuvwxyz0123`)).toBe(true);
  });
});
