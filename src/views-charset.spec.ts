import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_DIR } from './config/app-config.js';

/**
 * V8 keeps a string whose characters all fit in Latin-1 with one byte per character; a single character beyond
 * U+00FF turns the whole page built from a template into UTF-16: twice the bytes to copy when the page is joined,
 * and a slower UTF-8 encoding to write it (a `›` in the error page cost its 48 KB page about 5 % of a 404's time).
 * These templates spell such characters as HTML entities; text from the application's data may still need UTF-16.
 */
describe("the debug pages' templates (views/error, views/profiler)", () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? files(join(dir, entry.name))
        : entry.name.endsWith('.hbs') || entry.name.endsWith('.css')
          ? [join(dir, entry.name)]
          : [],
    );

  /** `file: character` for each character of the files above `max`, outside Handlebars comments. */
  const beyond = (max: number, paths: string[]): string[] =>
    paths.flatMap((file) => {
      const text = readFileSync(file, 'utf8')
        .replace(/\{\{!--[\s\S]*?--\}\}/g, '')
        .replace(/\{\{![\s\S]*?\}\}/g, '');
      return [...text].filter((c) => c.codePointAt(0)! > max).map((c) => `${file.slice(PROJECT_DIR.length + 1)}: ${c}`);
    });

  it('holds only Latin-1 characters outside comments (others as HTML entities)', () => {
    // The shop's own templates follow the same rule (docs/EXTENDING.md, "Templates"), but a page of the application
    // may need a `€`: only the profiler's and the error page's templates, the tooling's hot pages, are held to it here.
    expect(
      beyond(0xff, [join(PROJECT_DIR, 'views', 'error'), join(PROJECT_DIR, 'views', 'profiler')].flatMap(files)),
    ).toEqual([]);
  });

  it('holds only ASCII in the templates of every debug 404: the error page', () => {
    // A one-byte page with a single `·` encodes to UTF-8 character by character: 10.8 against 7.2 µs for the 40 KB
    // of a debug 404 (measured alone), on every error page.
    expect(beyond(0x7f, files(join(PROJECT_DIR, 'views', 'error')))).toEqual([]);
  });
});
