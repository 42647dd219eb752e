import { compactCss } from './compact-css.js';

describe('compactCss', () => {
  it('drops comments and spare white space, keeping selectors and values intact', () => {
    expect(
      compactCss(
        '/* why */\n.a > .b ,\n.c:hover { color: #fff ;  margin: 0 auto; }\n@media (max-width: 720px) { .a { padding: .5rem 1rem; } }\n',
      ),
    ).toBe('.a>.b,.c:hover{color:#fff;margin:0 auto}@media (max-width:720px){.a{padding:.5rem 1rem}}');
  });
});
