import type hbs from 'hbs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { oneByteHtml } from './one-byte.js';
import { highlightExcerpt, type HighlightedLine } from './code-highlighter.js';
import type { FlattenedException, FlattenedFrame } from './flattened-exception.js';
import type { ExcerptLine } from './source-resolver.js';
import type { EditorLinks } from '../editor/editor-links.js';

type Handlebars = ReturnType<typeof hbs.create>['handlebars'];

/**
 * `{{exception_frames exception}}`: an exception's code excerpt and frames (views/error/partials/exception-frames.hbs),
 * the bulk of an error page: the excerpt where it was thrown, highlighted, then every frame on one line, an
 * application frame's own excerpt opened on a click, the framework's frames (dependencies, Node, the kernel and the
 * profiler) folded by runs under "N framework frames"; each excerpt once. Frames that the ExceptionFlattener keeps per call path arrive frozen, the same array
 * for every exception thrown on that path (every unmatched URL is the router's same 404), so their HTML is
 * rendered once and kept with them (weakly); other frames (a stored profile's, in the Exception panel) are
 * rendered each time. The excerpt is chosen from the frames, so the frames decide the whole fragment.
 */
export function registerExceptionFramesHelper(handlebars: Handlebars, partialsDir: string, links: EditorLinks): void {
  const template = handlebars.compile(readFileSync(join(partialsDir, 'exception-frames.hbs'), 'utf8'));
  // Per frozen frames, per number of frames shared with the exception before (the fragment lists the others) and
  // whether the exception is an inner one of its chain (folded: a shorter excerpt).
  const rendered = new WeakMap<object, Map<number, unknown>>();
  handlebars.registerHelper(
    'exception_frames',
    (exception: { frames?: unknown; sharedFrames?: number; position?: number; count?: number }) => {
      const frames = exception?.frames;
      const variant = (exception?.sharedFrames ?? 0) * 2 + (exception?.position !== exception?.count ? 1 : 0);
      const cacheable = typeof frames === 'object' && frames !== null && Object.isFrozen(frames);
      const known = cacheable ? rendered.get(frames)?.get(variant) : undefined;
      if (known) return known;
      // Kept as one flat one-byte string: Handlebars builds its output by concatenation, a rope of thousands of pieces
      // that every page embedding it would walk again, and the excerpts' lines are two-byte strings (see oneByteHtml).
      const view = framesView(exception as FlattenedException, links);
      const text = cacheable ? oneByteHtml(template(view)) : template(view);
      const html = new handlebars.SafeString(text);
      if (cacheable) {
        let variants = rendered.get(frames);
        if (!variants) rendered.set(frames, (variants = new Map()));
        variants.set(variant, html);
      }
      return html;
    },
  );
}

interface FrameView {
  function: string;
  file: string;
  line: number;
  column: number;
  /** Where its file:line leads (EditorLinks), escaped for the attribute; null when nowhere. */
  href: string | null;
  /** Its excerpt, for an application frame other than the one shown above the frames. */
  excerpt: HighlightedLine[] | null;
  /** The frame whose excerpt is shown above the frames. */
  shown: boolean;
}

/** Where the code is the framework's rather than the application's. */
export function isFrameworkFrame(frame: Pick<FlattenedFrame, 'file' | 'vendor'>): boolean {
  return frame.vendor || /^(src\/(lifecycle|profiler)\/|node:)/.test(frame.file);
}

function framesView(exception: FlattenedException, links: EditorLinks): object {
  const top = exception.excerpt;
  let shownTaken = false;
  const groups: { framework: boolean; count: number; frames: FrameView[] }[] = [];
  const shared = exception.sharedFrames ?? 0;
  const own = (exception.frames ?? []).slice(0, (exception.frames ?? []).length - shared);
  for (const frame of own) {
    const framework = isFrameworkFrame(frame);
    const shown = !shownTaken && top !== null && frame.file === top.file && frame.line === top.line;
    if (shown) shownTaken = true;
    const view: FrameView = {
      function: frame.function,
      file: frame.file,
      line: frame.line,
      column: frame.column,
      href: links.hrefAttribute(frame.file, frame.line, frame.column),
      excerpt:
        !framework && !shown && frame.excerpt
          ? highlightExcerpt(frame.file, around(frame.excerpt, FOLDED_RADIUS))
          : null,
      shown,
    };
    const last = groups[groups.length - 1];
    if (last && last.framework === framework) {
      last.frames.push(view);
      last.count++;
    } else groups.push({ framework, count: 1, frames: [view] });
  }
  // An exception the page folds (the inner ones of a chain) shows a shorter excerpt, as its folded frames do.
  const folded = exception.position !== exception.count;
  const lines = top ? (folded ? around(top.lines, FOLDED_RADIUS) : top.lines) : [];
  return {
    excerpt: top
      ? {
          file: top.file,
          line: top.line,
          href: links.hrefAttribute(top.file, top.line),
          lines: highlightExcerpt(top.file, lines),
        }
      : null,
    groups: groups.map((g) => ({ ...g, plural: g.count !== 1 })),
    shared,
    sharedPlural: shared !== 1,
  };
}

/** Lines each side of the current one in a folded excerpt. */
const FOLDED_RADIUS = 3;

/** The lines of an excerpt within `radius` of its current line. */
function around(lines: readonly ExcerptLine[], radius: number): ExcerptLine[] {
  const at = lines.findIndex((l) => l.current);
  return at === -1 ? [...lines] : lines.slice(Math.max(0, at - radius), at + radius + 1);
}
