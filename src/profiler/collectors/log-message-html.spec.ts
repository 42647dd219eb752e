import { logMessageHtml } from './log-message-html.js';

describe('logMessageHtml', () => {
  it('marks each interpolated value with its placeholder and escapes the rest', () => {
    expect(logMessageHtml('Stock low for {sku} <{n}>', { sku: 'TEA-1', n: 2 })).toBe(
      'Stock low for <mark class="placeholder" title="{sku}">TEA-1</mark> &lt;<mark class="placeholder" title="{n}">2</mark>&gt;',
    );
  });

  it('leaves a placeholder without a value as written, and escapes values', () => {
    expect(logMessageHtml('{missing} and {html}', { html: '<b>"x"</b>' })).toBe(
      '{missing} and <mark class="placeholder" title="{html}">&lt;b&gt;&quot;x&quot;&lt;/b&gt;</mark>',
    );
  });

  it("links an uncaught exception's {file} to its line, and nothing when there is nowhere to lead", () => {
    const context = { class: 'E', file: 'src/a&b.ts', line: 12 };
    const link = (file: string, line: number) => `/_profiler/open?file=${file}&x=1#L${line}`;
    expect(logMessageHtml('{class} at {file} line {line}', context, { link })).toBe(
      '<mark class="placeholder" title="{class}">E</mark> at <a class="file-link" href="/_profiler/open?file=src/a&amp;b.ts&amp;x=1#L12"><mark class="placeholder" title="{file}">src/a&amp;b.ts</mark></a> line <mark class="placeholder" title="{line}">12</mark>',
    );
    expect(logMessageHtml('at {file}', context, { link: () => null })).toBe(
      'at <mark class="placeholder" title="{file}">src/a&amp;b.ts</mark>',
    );
    expect(logMessageHtml('at {file}', { file: 'src/a.ts' }, { link })).toBe(
      'at <mark class="placeholder" title="{file}">src/a.ts</mark>',
    );
  });
});
