import type hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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
    const text = template(exception);
    // Handlebars builds its output by concatenation: a rope of thousands of pieces, which every page embedding
    // it would walk again to write it. Flattened once (ToNumber flattens a string in place, as flatstr does), each
    // page copies one flat string: about 20 µs less for a debug 404.
    // eslint-disable-next-line @typescript-eslint/no-unused-expressions
    if (cacheable) Number(text);
    const html = new handlebars.SafeString(text);
    if (cacheable) rendered.set(frames, html);
    return html;
  });
}
