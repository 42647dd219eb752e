import type hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { oneByteHtml } from './one-byte.js';

type Handlebars = ReturnType<typeof hbs.create>['handlebars'];

/**
 * `{{exception_frames exception}}`: an exception's code excerpt and frames (views/error/partials/exception-frames.hbs),
 * the bulk of an error page. Frames that the ExceptionFlattener keeps per call path arrive frozen, the same array
 * for every exception thrown on that path (every unmatched URL is the router's same 404), so their HTML is
 * rendered once and kept with them (weakly); other frames (a stored profile's, in the Exception panel) are
 * rendered each time. The excerpt is chosen from the frames, so the frames decide the whole fragment.
 */
export function registerExceptionFramesHelper(handlebars: Handlebars, partialsDir: string): void {
  const template = handlebars.compile(readFileSync(join(partialsDir, 'exception-frames.hbs'), 'utf8'));
  const rendered = new WeakMap<object, unknown>();
  handlebars.registerHelper('exception_frames', (exception: { frames?: unknown }) => {
    const frames = exception?.frames;
    const cacheable = typeof frames === 'object' && frames !== null && Object.isFrozen(frames);
    const known = cacheable ? rendered.get(frames) : undefined;
    if (known) return known;
    // Kept as one flat one-byte string: Handlebars builds its output by concatenation, a rope of thousands of pieces
    // that every page embedding it would walk again (about 20 µs a debug 404), and the excerpts' lines are two-byte
    // strings (see oneByteHtml).
    const text = cacheable ? oneByteHtml(template(exception)) : template(exception);
    const html = new handlebars.SafeString(text);
    if (cacheable) rendered.set(frames, html);
    return html;
  });
}
