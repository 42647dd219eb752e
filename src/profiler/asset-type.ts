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
