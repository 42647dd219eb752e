import { createRequire } from 'node:module';

/** What the profiler uses of highlight.js. */
export interface Highlighter {
  registerLanguage(name: string, language: unknown): void;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

// Loaded without its type declarations: they reference the DOM library, which would type every page function of the
// browser tests as DOM code and fail them.
const require = createRequire(import.meta.url);

/** highlight.js's core with the languages the profiler shows: TypeScript and JavaScript sources, SQL. */
export const highlighter = require('highlight.js/lib/core') as Highlighter;
for (const language of ['typescript', 'javascript', 'sql']) highlighter.registerLanguage(language, require(`highlight.js/lib/languages/${language}`));
