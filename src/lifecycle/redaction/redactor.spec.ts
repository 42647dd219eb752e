import { MASK, Redactor } from './redactor.js';

describe('Redactor', () => {
  it('masks credential headers and keeps the others', () => {
    expect(Redactor.headers({
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
    })).toEqual({
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
      expect(Redactor.headers({ Authorization: 'Bearer abc', 'X-Debug-Token': 'a1b2c3', 'X-Shop-Token': 't', Accept: '*/*' })).toEqual({
        Authorization: MASK,
        'X-Debug-Token': 'a1b2c3',
        'X-Shop-Token': MASK,
        Accept: '*/*',
      });
    }
  });

  it.each(['password', 'newPassword', 'passwd', 'client_secret', 'access_token', 'api_key', 'cardNumber', 'cvv', 'cvc', 'pin', 'privateKey'])('treats %s as a secret field', (name) => {
    expect(Redactor.isSecretField(name)).toBe(true);
  });

  it.each(['username', 'email', 'quantity', 'sku', 'shipping', 'price'])('does not treat %s as a secret field', (name) => {
    expect(Redactor.isSecretField(name)).toBe(false);
  });

  it('masks secret query values and URL passwords inside text, and leaves the rest alone', () => {
    expect(Redactor.text('http://shop.test/reset?token=abc123&page=2&password=hunter2#top')).toBe('http://shop.test/reset?token=******&page=2&password=******#top');
    expect(Redactor.text('No route found for "GET http://h/x?api_key=k1&q=tea": 404')).toBe('No route found for "GET http://h/x?api_key=******&q=tea": 404');
    expect(Redactor.text('?%70assword=x')).toBe('?%70assword=******');
    expect(Redactor.text('?%zz=1&secret=')).toBe('?%zz=1&secret=');
    expect(Redactor.text('postgres://shop:s3cret@db:5432/shop and redis://:pw@cache')).toBe('postgres://shop:******@db:5432/shop and redis://:******@cache');
    expect(Redactor.text('user@example.com paid 2=2')).toBe('user@example.com paid 2=2');
    expect(Redactor.text('plain')).toBe('plain');
  });

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
});
