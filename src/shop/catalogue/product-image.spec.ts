import { initialsOf, paletteOf, productImageSvg, xml } from './product-image.js';

describe('product pictures', () => {
  it('draws an 800×600 SVG with the initials and the name, the same bytes every time', () => {
    const svg = productImageSvg({ slug: 'ethiopian-espresso-roast-1-kg', name: 'Ethiopian Espresso Roast, 1 kg' });
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="800" height="600" viewBox="0 0 800 600" role="img" aria-label="Ethiopian Espresso Roast, 1 kg">/,
    );
    expect(svg).toContain('<title>Ethiopian Espresso Roast, 1 kg</title>');
    expect(svg).toContain('font-weight="700" fill="#ffffff">EE</text>');
    expect(svg).toContain('font-size="36" fill="#');
    expect(svg).toContain(
      '<tspan x="400" y="478">Ethiopian Espresso Roast,</tspan><tspan x="400" y="522">1 kg</tspan></text>',
    );
    expect(svg.endsWith('</svg>\n')).toBe(true);
    expect(productImageSvg({ slug: 'ethiopian-espresso-roast-1-kg', name: 'Ethiopian Espresso Roast, 1 kg' })).toBe(
      svg,
    );
  });

  it('takes its colours from the slug: the same slug the same colours, another slug others', () => {
    const palette = paletteOf('olive-wood-cutting-board');
    expect(palette).toEqual(paletteOf('olive-wood-cutting-board'));
    for (const colour of Object.values(palette)) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
    expect(paletteOf('linen-apron')).not.toEqual(palette);
    const svg = productImageSvg({ slug: 'olive-wood-cutting-board', name: 'Olive Wood Cutting Board' });
    expect(svg).toContain(
      `<stop offset="0" stop-color="${palette.light}"/><stop offset="1" stop-color="${palette.mid}"/>`,
    );
    expect(svg).toContain(`<circle cx="400" cy="250" r="140" fill="${palette.dark}"/>`);
  });

  it('escapes every text, and drops characters XML forbids', () => {
    const svg = productImageSvg({ slug: 'lamp', name: `Lamp <script>alert("x")</script> & 'co'\u0007` });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('\u0007');
    expect(svg).toContain('aria-label="Lamp &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;"');
    expect(svg).toContain('<title>Lamp &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</title>');
    expect(svg).toContain('fill="#ffffff">LS</text>');
    expect(xml('a\ud800b\udc00c 😀')).toBe('abc 😀');
  });

  it('wraps a long name on two lines, ending in an ellipsis when it does not fit', () => {
    const svg = productImageSvg({
      slug: 'long',
      name: 'Hand-Thrown Stoneware Breakfast Bowl With A Very Long Name Indeed, Set Of Four',
    });
    const lines = [...svg.matchAll(/<tspan [^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1]);
    expect(lines).toEqual(['Hand-Thrown Stoneware', 'Breakfast Bowl With A…']);
    const short = productImageSvg({ slug: 'short', name: 'Linen Apron' });
    expect([...short.matchAll(/<tspan ([^>]*)>([^<]*)<\/tspan>/g)].map((m) => [m[1], m[2]])).toEqual([
      ['x="400" y="500"', 'Linen Apron'],
    ]);
    const word = productImageSvg({ slug: 'word', name: 'Supercalifragilisticexpialidocious' });
    expect([...word.matchAll(/<tspan [^>]*>([^<]*)<\/tspan>/g)].map((m) => m[1])).toEqual([
      'Supercalifragilisticexpia…',
    ]);
  });

  it('makes initials of the first two words that have a letter or digit', () => {
    expect(
      ['Olive Wood Cutting Board', 'crème brûlée', '<b> "&', '  ', '3 Pack Socks', 'Émile'].map(initialsOf),
    ).toEqual(['OW', 'CB', 'B', '?', '3P', 'É']);
  });
});
