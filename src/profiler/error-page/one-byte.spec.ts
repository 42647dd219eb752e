import { oneByteHtml, oneByteText } from './one-byte.js';

describe('oneByteHtml', () => {
  it('keeps Latin-1 HTML as it is', () => {
    expect(oneByteHtml('<p>café &amp; µ ×</p>')).toBe('<p>café &amp; µ ×</p>');
  });

  it('writes other characters as numeric character references, astral ones whole', () => {
    expect(oneByteHtml('<td>a → b — “c” 🚀</td>')).toBe('<td>a &#x2192; b &#x2014; &#x201c;c&#x201d; &#x1f680;</td>');
  });
});

describe('oneByteText', () => {
  it('returns the same characters', () => {
    expect(oneByteText('    at f (src/x.ts:1:2)')).toBe('    at f (src/x.ts:1:2)');
    expect(oneByteText('naïve → arrow')).toBe('naïve → arrow');
  });
});
