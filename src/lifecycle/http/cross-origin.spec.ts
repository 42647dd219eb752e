import { isCrossOrigin, isOwnOrigin, isTopLevelNavigation } from './cross-origin.js';

const request = (headers: Record<string, string>, schemeAndHttpHost = 'https://shop.example', method = 'GET') => ({
  schemeAndHttpHost,
  method,
  header: (name: string) => headers[name.toLowerCase()],
});

describe('isOwnOrigin', () => {
  it('compares the serialised origin a browser sends, default port aside', () => {
    expect(isOwnOrigin('http://127.0.0.1:3000', 'http://127.0.0.1:3000')).toBe(true);
    expect(isOwnOrigin('http://[::1]:3000', 'http://[::1]:3000')).toBe(true);
    expect(isOwnOrigin('http://127.0.0.1:3001', 'http://127.0.0.1:3000')).toBe(false);
    expect(isOwnOrigin('https://shop.example', 'https://shop.example:443')).toBe(true);
    expect(isOwnOrigin('null', 'http://shop.example')).toBe(false);
    expect(isOwnOrigin('https://shop.example', '')).toBe(false);
  });
});

describe('isCrossOrigin', () => {
  it.each([
    [{ origin: 'https://evil.example' }],
    [{ origin: 'null' }],
    [{ origin: 'null', 'sec-fetch-site': 'cross-site' }],
    [{ origin: 'http://shop.example' }],
    [{ origin: 'https://shop.example:8443' }],
    [{ origin: 'https://api.shop.example' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }],
    [{ 'sec-fetch-site': 'cross-site', origin: 'https://shop.example' }],
  ])('is true for %j', (headers) => {
    expect(isCrossOrigin(request(headers))).toBe(true);
  });

  it.each([
    [{}],
    [{ origin: 'https://shop.example' }],
    [{ origin: 'https://shop.example', 'sec-fetch-site': 'same-origin' }],
    [{ 'sec-fetch-site': 'none' }],
    [{ 'sec-fetch-site': '' }],
    [{ 'sec-fetch-site': 'same-origin', origin: 'null' }],
  ])('is false for %j', (headers) => {
    expect(isCrossOrigin(request(headers))).toBe(false);
  });
});

describe('isTopLevelNavigation', () => {
  const link = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

  it('is true for a link followed from another site, and for an address typed', () => {
    expect(isTopLevelNavigation(request(link))).toBe(true);
    expect(isTopLevelNavigation(request(link, 'https://shop.example', 'HEAD'))).toBe(true);
    expect(isTopLevelNavigation(request({ ...link, 'sec-fetch-site': 'none' }))).toBe(true);
  });

  it('is false for what a page can read or frame: fetch, frames, forms posted, a foreign Origin', () => {
    expect(isTopLevelNavigation(request({ ...link, 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }))).toBe(false);
    expect(isTopLevelNavigation(request({ ...link, 'sec-fetch-mode': 'no-cors' }))).toBe(false);
    expect(isTopLevelNavigation(request({ ...link, 'sec-fetch-dest': 'iframe' }))).toBe(false);
    expect(isTopLevelNavigation(request(link, 'https://shop.example', 'POST'))).toBe(false);
    expect(isTopLevelNavigation(request({ ...link, origin: 'https://evil.example' }))).toBe(false);
    expect(isTopLevelNavigation(request({ 'sec-fetch-site': 'cross-site' }))).toBe(false);
  });
});
