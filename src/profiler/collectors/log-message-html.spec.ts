import { logMessageHtml } from './log-message-html.js';

describe('logMessageHtml', () => {
  it('marks each interpolated value with its placeholder and escapes the rest', () => {
    expect(logMessageHtml('Stock low for {sku} <{n}>', { sku: 'TEA-1', n: 2 }))
      .toBe('Stock low for <mark class="placeholder" title="{sku}">TEA-1</mark> &lt;<mark class="placeholder" title="{n}">2</mark>&gt;');
  });

  it('leaves a placeholder without a value as written, and escapes values', () => {
    expect(logMessageHtml('{missing} and {html}', { html: '<b>"x"</b>' }))
      .toBe('{missing} and <mark class="placeholder" title="{html}">&lt;b&gt;&quot;x&quot;&lt;/b&gt;</mark>');
  });
});
