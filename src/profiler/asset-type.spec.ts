import { isAssetType } from './asset-type.js';

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

  it.each([undefined, '', 'text/html; charset=utf-8', 'application/json', 'application/problem+json', 'text/plain', 'application/octet-stream', 'application/pdf'])(
    'does not count %s',
    (type) => {
      expect(isAssetType(type)).toBe(false);
    },
  );
});
