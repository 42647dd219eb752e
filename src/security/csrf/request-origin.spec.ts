import { foreignSiteReason, nonJsonBodyReason, type RequestHeaders } from './request-origin.js';

const request = (headers: Record<string, string>, schemeAndHttpHost = 'https://shop.example'): RequestHeaders => ({
  schemeAndHttpHost,
  header: (name: string) => headers[name.toLowerCase()],
});

describe('foreignSiteReason', () => {
  const trusted = ['https://partner.example'];

  it.each([
    [{}],
    [{ 'sec-fetch-site': 'same-origin' }],
    [{ 'sec-fetch-site': 'none' }],
    [{ 'sec-fetch-site': ' Same-Origin ' }],
    [{ origin: 'https://shop.example' }],
    [{ origin: 'HTTPS://SHOP.EXAMPLE' }],
    [{ origin: 'https://shop.example', 'sec-fetch-site': 'same-origin' }],
    [{ origin: 'https://partner.example', 'sec-fetch-site': 'cross-site' }],
    [{ origin: 'https://partner.example' }],
  ])('lets %j through', (headers) => {
    expect(foreignSiteReason(request(headers), trusted)).toBeNull();
  });

  it.each([
    [{ 'sec-fetch-site': 'cross-site' }, 'Cross-site request refused (Sec-Fetch-Site: cross-site).'],
    [
      { 'sec-fetch-site': 'same-site', origin: 'https://blog.shop.example' },
      'Cross-site request refused (Sec-Fetch-Site: same-site, Origin: https://blog.shop.example).',
    ],
    [{ 'sec-fetch-site': 'something-new' }, 'Cross-site request refused (Sec-Fetch-Site: something-new).'],
    [
      { origin: 'https://evil.example' },
      'Cross-origin request refused: the Origin "https://evil.example" is not this site\'s.',
    ],
    [{ origin: 'null' }, 'Cross-origin request refused: the Origin "null" is not this site\'s.'],
    [
      { origin: 'http://shop.example' },
      'Cross-origin request refused: the Origin "http://shop.example" is not this site\'s.',
    ],
    [
      { origin: 'https://shop.example:8443' },
      'Cross-origin request refused: the Origin "https://shop.example:8443" is not this site\'s.',
    ],
    [
      { origin: 'https://shop.example.evil.example' },
      'Cross-origin request refused: the Origin "https://shop.example.evil.example" is not this site\'s.',
    ],
    [
      { origin: 'https://shop.example/path' },
      'Cross-origin request refused: the Origin "https://shop.example/path" is not this site\'s.',
    ],
    [{ origin: 'not a url' }, 'Cross-origin request refused: the Origin "not a url" is not this site\'s.'],
    [{ origin: '' }, 'Cross-origin request refused: the Origin "" is not this site\'s.'],
  ])('refuses %j', (headers, reason) => {
    expect(foreignSiteReason(request(headers), trusted)).toBe(reason);
  });

  it("takes the browser's Sec-Fetch-Site over an Origin that a proxy's hidden scheme makes look foreign", () => {
    expect(
      foreignSiteReason(
        request({ origin: 'https://shop.example', 'sec-fetch-site': 'same-origin' }, 'http://shop.example'),
        [],
      ),
    ).toBeNull();
    expect(foreignSiteReason(request({ origin: 'https://shop.example' }, 'http://shop.example'), [])).not.toBeNull();
  });

  it('trusts no origin for `*`: a wildcard CORS policy does not make other sites this one', () => {
    expect(foreignSiteReason(request({ origin: 'https://evil.example' }), ['*'])).not.toBeNull();
  });
});

describe('nonJsonBodyReason', () => {
  it.each([
    [{}],
    [{ 'content-length': '0' }],
    [{ 'content-type': '' }],
    [{ 'content-type': 'application/json', 'content-length': '2' }],
    [{ 'content-type': 'application/json; charset=utf-8', 'content-length': '2' }],
    [{ 'content-type': 'Application/JSON', 'transfer-encoding': 'chunked' }],
  ])('takes %j', (headers) => {
    expect(nonJsonBodyReason(request(headers))).toBeNull();
  });

  it.each([
    [
      { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '9' },
      'not "application/x-www-form-urlencoded"',
    ],
    [
      { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' },
      'not "application/x-www-form-urlencoded"',
    ],
    [{ 'content-type': 'multipart/form-data; boundary=x', 'content-length': '90' }, 'not "multipart/form-data"'],
    [{ 'content-type': 'text/plain', 'content-length': '9' }, 'not "text/plain"'],
    [{ 'content-type': 'text/plain;charset=UTF-8' }, 'not "text/plain"'],
    [{ 'content-type': 'application/jsonx' }, 'not "application/jsonx"'],
    [{ 'content-type': 'application/merge-patch+json' }, 'not "application/merge-patch+json"'],
    [{ 'content-type': ';' }, 'not ";"'],
    [{ 'content-length': '12' }, 'this body has no Content-Type'],
    [{ 'content-type': ' ', 'content-length': '12' }, 'this body has no Content-Type'],
    [{ 'transfer-encoding': 'chunked' }, 'this body has no Content-Type'],
  ])('refuses %j', (headers, reason) => {
    expect(nonJsonBodyReason(request(headers))).toContain(reason);
  });
});
