import { highlightedSql } from './sql-highlighter.js';

describe('highlightedSql', () => {
  it('lays a statement out for its dialect and highlights it', () => {
    const html = highlightedSql('select "id" from "products" where "slug" = $1 limit 1', 'postgres');
    expect(html).toContain(
      '<span class="hljs-keyword">select</span>\n  &quot;id&quot;\n<span class="hljs-keyword">from</span>\n  &quot;products&quot;\n<span class="hljs-keyword">where</span>',
    );
    expect(html.replace(/<[^>]+>/g, '')).toContain('"slug" = $1\nlimit\n  1'.replace(/"/g, '&quot;'));
  });

  it('escapes every piece of text', () => {
    const html = highlightedSql(`select '<script>alert(1)</script>' from "t" where a = ?`, 'sqlite');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
  });

  it('keeps a statement it cannot parse as recorded, still escaped', () => {
    const html = highlightedSql('select <b> from ((', 'sqlite');
    expect(html.replace(/<[^>]+>/g, '')).toContain('&lt;b&gt;');
  });
});
