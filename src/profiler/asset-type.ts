/**
 * Whether a request was for a static asset: its response's type says so, or its path names a static file (a browser's
 * own `/favicon.ico`, a missing picture: their 404 pages are HTML, yet nobody looks for them among the pages).
 */
export function isAssetRequest(path: string, contentType: string | undefined): boolean {
  return isAssetType(contentType) || ASSET_PATH.test(path);
}

const ASSET_PATH = /\.(ico|png|jpe?g|gif|webp|avif|svg|bmp|woff2?|ttf|otf|eot|css|js|mjs|map)$/i;

/**
 * Whether a response's Content-Type is a static asset's (an image, a font, a stylesheet or a script): the request
 * list leaves such requests out unless asked, as they bury the pages and API calls a developer looks for.
 */
export function isAssetType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return ASSET_TYPES.has(type) || /^(image|font)\//.test(type);
}

const ASSET_TYPES = new Set([
  'text/css',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'text/ecmascript',
  'application/font-woff',
  'application/font-woff2',
  'application/x-font-ttf',
  'application/x-font-opentype',
  'application/vnd.ms-fontobject',
]);
