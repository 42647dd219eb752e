import { isAssetRequest, isAssetType } from './asset-type.js';

describe('isAssetType', () => {
  it.each([
    'image/svg+xml',
    'image/png',
    'IMAGE/JPEG',
    'font/woff2',
    'text/css; charset=UTF-8',
    'application/javascript; charset=utf-8',
    'text/javascript',
    'application/vnd.ms-fontobject',
  ])('counts %s as an asset', (type) => {
    expect(isAssetType(type)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/html; charset=utf-8',
    'application/json',
    'application/problem+json',
    'text/plain',
    'application/octet-stream',
    'application/pdf',
  ])('does not count %s', (type) => {
    expect(isAssetType(type)).toBe(false);
  });
});

describe('isAssetRequest', () => {
  it('counts a request for a static file by its path, whatever its response (the 404 of a missing favicon)', () => {
    expect(isAssetRequest('/favicon.ico', 'text/html; charset=utf-8')).toBe(true);
    expect(isAssetRequest('/images/products/tea.SVG', undefined)).toBe(true);
    expect(isAssetRequest('/assets/app.js', 'text/html')).toBe(true);
    expect(isAssetRequest('/fonts/inter.woff2', undefined)).toBe(true);
  });

  it('counts a page by its response type only', () => {
    expect(isAssetRequest('/products', 'text/html; charset=utf-8')).toBe(false);
    expect(isAssetRequest('/api/cart', 'application/json')).toBe(false);
    expect(isAssetRequest('/docs/readme.json', 'application/json')).toBe(false);
    expect(isAssetRequest('/products/tea', 'image/png')).toBe(true);
  });
});
