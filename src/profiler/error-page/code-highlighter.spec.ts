import { highlightExcerpt, shortClasses, splitLines } from './code-highlighter.js';

describe('highlightExcerpt', () => {
  it('highlights TypeScript on the server, one balanced line per excerpt line, the text escaped', () => {
    const lines = highlightExcerpt('src/a.ts', [
      { number: 9, text: "const x = '<b>';", current: false },
      { number: 10, text: '/* a comment', current: true },
      { number: 11, text: 'still it */ throw new Error(x);', current: false },
    ]);
    expect(lines.map((l) => [l.number, l.current])).toEqual([
      [9, false],
      [10, true],
      [11, false],
    ]);
    expect(lines[0].html).toBe('<i class="k">const</i> x = <i class="s">&#x27;&lt;b&gt;&#x27;</i>;');
    // The comment spans two lines: each line has its own balanced span.
    expect(lines[1].html).toBe('<i class="c">/* a comment</i>');
    expect(lines[2].html).toBe(
      '<i class="c">still it */</i> <i class="k">throw</i> <i class="k">new</i> <i class="t">Error</i>(x);',
    );
  });

  it('escapes a file it has no grammar for, without spans', () => {
    expect(
      highlightExcerpt('views/page.hbs', [{ number: 1, text: '<p>{{name}} & co</p>', current: true }])[0].html,
    ).toBe('&lt;p&gt;{{name}} &amp; co&lt;/p&gt;');
  });

  it('keeps the same answer for the same excerpt', () => {
    const lines = [{ number: 1, text: 'let a = 1;', current: true }];
    expect(highlightExcerpt('src/b.ts', lines)).toBe(highlightExcerpt('src/b.ts', lines));
  });
});

describe('splitLines', () => {
  it('closes the elements open at a line end and opens them again on the next line', () => {
    expect(splitLines('<i class="a">x\n<i class="b">y\nz</i></i>w')).toEqual([
      '<i class="a">x</i>',
      '<i class="a"><i class="b">y</i></i>',
      '<i class="a"><i class="b">z</i></i>w',
    ]);
  });
});

describe('shortClasses', () => {
  it('shortens the classes the page colours and drops the spans of the others (short elements), nesting kept', () => {
    expect(
      shortClasses(
        '<span class="hljs-string">`a <span class="hljs-subst">${b}</span> <span class="hljs-operator">+</span>`</span>',
      ),
    ).toBe('<i class="s">`a ${b} +`</i>');
  });
});
