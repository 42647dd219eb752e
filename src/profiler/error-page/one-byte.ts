/**
 * V8 stores a string in one byte per character when every character is Latin-1, else in two. A page joined from
 * pieces is two-byte as soon as one piece is: twice the bytes to copy, and a slower UTF-8 encoding to write it. The
 * source files the excerpts come from are read as UTF-8 and hold the odd `→` in a comment, so every line sliced
 * from them (and the HTML made of those lines) is two-byte, and with it each error page. The fragments an error
 * page keeps (a call path's frames, its plain-text trace) pass through here once.
 */
const BEYOND_LATIN1 = /[\u0100-\u{10ffff}]/u;
const BEYOND_LATIN1_ALL = /[\u0100-\u{10ffff}]/gu;

/** HTML with every character beyond Latin-1 as a numeric character reference, as a flat one-byte string. */
export function oneByteHtml(html: string): string {
  const escaped = BEYOND_LATIN1.test(html)
    ? html.replace(BEYOND_LATIN1_ALL, (c) => `&#x${c.codePointAt(0)!.toString(16)};`)
    : html;
  return Buffer.from(escaped, 'latin1').toString('latin1');
}

/** Text as a flat one-byte string when it fits (the same characters); as it is when it does not. */
export function oneByteText(text: string): string {
  return BEYOND_LATIN1.test(text) ? text : Buffer.from(text, 'latin1').toString('latin1');
}
