import { createHash } from 'node:crypto';

/** The picture's size in pixels (4:3, like the `<img>` boxes of the list and product pages). */
export const PRODUCT_IMAGE_WIDTH = 800;
export const PRODUCT_IMAGE_HEIGHT = 600;

/**
 * A product's picture, drawn by the shop itself (no external assets): a two-colour gradient and a disc whose hues
 * come from the slug, the name's initials on the disc and the name below it. Deterministic: the same product gives
 * the same bytes (so the same ETag) on every run. Every text is XML-escaped.
 */
export function productImageSvg(product: { slug: string; name: string }): string {
  const palette = paletteOf(product.slug);
  const name = xml(product.name);
  const initials = xml(initialsOf(product.name));
  const lines = wrap(product.name, 26, 2);
  const firstLineY = 500 - (lines.length - 1) * 22;
  const nameLines = lines.map((line, i) => `<tspan x="400" y="${firstLineY + i * 44}">${xml(line)}</tspan>`).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PRODUCT_IMAGE_WIDTH}" height="${PRODUCT_IMAGE_HEIGHT}" viewBox="0 0 ${PRODUCT_IMAGE_WIDTH} ${PRODUCT_IMAGE_HEIGHT}" role="img" aria-label="${name}">` +
    `<title>${name}</title>` +
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${palette.light}"/><stop offset="1" stop-color="${palette.mid}"/></linearGradient></defs>` +
    `<rect width="${PRODUCT_IMAGE_WIDTH}" height="${PRODUCT_IMAGE_HEIGHT}" fill="url(#bg)"/>` +
    `<circle cx="400" cy="250" r="140" fill="${palette.dark}"/>` +
    `<text x="400" y="290" text-anchor="middle" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="120" font-weight="700" fill="#ffffff">${initials}</text>` +
    `<text text-anchor="middle" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="36" fill="${palette.dark}">${nameLines}</text>` +
    `</svg>\n`
  );
}

/** Three colours of one family, its hue (and a neighbouring one) taken from a hash of the slug. */
export function paletteOf(slug: string): { light: string; mid: string; dark: string } {
  const digest = createHash('sha256').update(slug).digest();
  const hue = digest.readUInt16BE(0) % 360;
  const neighbour = (hue + 20 + (digest[2] % 40)) % 360;
  return { light: hsl(hue, 60, 90), mid: hsl(neighbour, 55, 76), dark: hsl(hue, 45, 30) };
}

/** Up to two initials: the first letter or digit of the first two words that have one, upper-cased. */
export function initialsOf(name: string): string {
  const firsts = name
    .split(/\s+/)
    .map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0])
    .filter((c): c is string => c !== undefined);
  return firsts.slice(0, 2).join('').toUpperCase() || '?';
}

/** Text as XML character data or attribute value: markup characters escaped, characters XML 1.0 forbids dropped. */
export function xml(text: string): string {
  return Array.from(text)
    .filter((char) => xmlAllows(char.codePointAt(0)!))
    .join('')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** XML 1.0's Char: tab, line feed, carriage return, and everything from space on but lone surrogates, U+FFFE, U+FFFF. */
function xmlAllows(code: number): boolean {
  if (code < 0x20) return code === 0x09 || code === 0x0a || code === 0x0d;
  return !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff;
}

/** Words into at most `maxLines` lines of at most `width` characters; what does not fit ends in an ellipsis. */
function wrap(text: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && length(line) + 1 + length(word) > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  const kept = lines.slice(0, maxLines).map((l) => (length(l) > width ? `${clip(l, width - 1)}…` : l));
  if (lines.length > maxLines) {
    let last = kept[maxLines - 1].replace(/…$/, '');
    while (length(last) + 1 > width && last.includes(' ')) last = last.slice(0, last.lastIndexOf(' '));
    kept[maxLines - 1] = `${clip(last, width - 1)}…`;
  }
  return kept;
}

/** Length in characters (code points), not UTF-16 units. */
function length(text: string): number {
  return Array.from(text).length;
}

function clip(text: string, width: number): string {
  return Array.from(text).slice(0, width).join('');
}

/** `hsl()` as `#rrggbb` (the form every SVG renderer reads). */
function hsl(h: number, s: number, l: number): string {
  const sat = s / 100;
  const light = l / 100;
  const a = sat * Math.min(light, 1 - light);
  const channel = (n: number): string => {
    const k = (n + h / 30) % 12;
    const value = light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${channel(0)}${channel(8)}${channel(4)}`;
}
