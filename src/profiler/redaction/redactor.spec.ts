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

  it.each(['password', 'newPassword', 'passwd', 'client_secret', 'access_token', 'api_key', 'cardNumber', 'cvv', 'cvc', 'pin', 'privateKey'])('treats %s as a secret field', (name) => {
    expect(Redactor.isSecretField(name)).toBe(true);
  });

  it.each(['username', 'email', 'quantity', 'sku', 'shipping', 'price'])('does not treat %s as a secret field', (name) => {
    expect(Redactor.isSecretField(name)).toBe(false);
  });
});
