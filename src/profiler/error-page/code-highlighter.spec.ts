import { highlightExcerpt, shortClasses, splitLines } from './code-highlighter.js';

describe('highlightExcerpt', () => {
  it('highlights TypeScript on the server, one balanced line per excerpt line, the text escaped', () => {
    const lines = highlightExcerpt('src/a.ts', [
      { number: 9, text: "const x = '<b>';", current: false },
      { number: 10, text: '/* a comment', current: true },
      { number: 11, text: 'still it */ throw new Error(x);', current: false },
    ]);
    expect(lines.map((l) => [l.number, l.current])).toEqual([[9, false], [10, true], [11, false]]);
    expect(lines[0].html).toBe('<span class="hl-k">const</span> x = <span class="hl-s">&#x27;&lt;b&gt;&#x27;</span>;');
    // The comment spans two lines: each line has its own balanced span.
    expect(lines[1].html).toBe('<span class="hl-c">/* a comment</span>');
    expect(lines[2].html).toBe('<span class="hl-c">still it */</span> <span class="hl-k">throw</span> <span class="hl-k">new</span> <span class="hl-t">Error</span>(x);');
  });

  it('escapes a file it has no grammar for, without spans', () => {
    expect(highlightExcerpt('views/page.hbs', [{ number: 1, text: '<p>{{name}} & co</p>', current: true }])[0].html).toBe('&lt;p&gt;{{name}} &amp; co&lt;/p&gt;');
  });

  it('keeps the same answer for the same excerpt', () => {
    const lines = [{ number: 1, text: 'let a = 1;', current: true }];
    expect(highlightExcerpt('src/b.ts', lines)).toBe(highlightExcerpt('src/b.ts', lines));
  });
});

describe('splitLines', () => {
  it('closes the spans open at a line end and opens them again on the next line', () => {
    expect(splitLines('<span class="a">x\n<span class="b">y\nz</span></span>w')).toEqual([
      '<span class="a">x</span>',
      '<span class="a"><span class="b">y</span></span>',
      '<span class="a"><span class="b">z</span></span>w',
    ]);
  });
});

describe('shortClasses', () => {
  it('shortens the classes the page colours and drops the spans of the others, nesting kept', () => {
    expect(shortClasses('<span class="hljs-string">`a <span class="hljs-subst">${b}</span> <span class="hljs-operator">+</span>`</span>')).toBe(
      '<span class="hl-s">`a <span class="hl-u">${b}</span> +`</span>',
    );
  });
});
