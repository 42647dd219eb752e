import { Injectable } from '@nestjs/common';
import escapeHtml from 'escape-html';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppConfig } from '../../config/app-config.js';
import type { PathMapping } from '../../config/editor-settings.js';

/**
 * Where a file:line shown by the error page or a panel leads: the configured editor (PROFILER_EDITOR, through
 * PROFILER_EDITOR_PATH_MAP when the editor runs on another machine or outside the container), or without an editor
 * the profiler's own source view of the file at that line, as Symfony's profiler does.
 */
@Injectable()
export class EditorLinks {
  private readonly template: string | null;
  private readonly pathMap: PathMapping[];
  private readonly root: string;
  /** The source view is a profiler page: without the profiler there is none. */
  private readonly viewer: boolean;
  private readonly known = new Map<string, string | null>();

  constructor(config: AppConfig) {
    this.template = config.profiler.editor.template;
    this.pathMap = config.profiler.editor.pathMap;
    this.root = config.projectDir;
    this.viewer = config.profiler.enabled;
  }

  /** Whether links open an editor (rather than the profiler's source view). */
  get opensEditor(): boolean {
    return this.template !== null;
  }

  /** The same, written for an HTML attribute (quoted with double quotes); null when there is none. */
  hrefAttribute(file: string, line: number, column = 1): string | null {
    const href = this.href(file, line, column);
    return href === null ? null : escapeHtml(href);
  }

  /**
   * The link for a file (absolute, or relative to the project) at a line; null for Node's own modules and the like.
   * Kept per place: an error page asks again for the same few (the uncaught exception's) on every request.
   */
  href(file: string, line: number, column = 1): string | null {
    const key = `${file}:${line}:${column}`;
    let known = this.known.get(key);
    if (known === undefined) {
      known = this.link(file, line, column);
      if (this.known.size >= PLACES_KEPT) this.known.clear();
      this.known.set(key, known);
    }
    return known;
  }

  private link(file: string, line: number, column: number): string | null {
    if (!file || file.startsWith('node:') || /^[a-z][a-z0-9+.-]+:/i.test(file)) return null;
    const absolute = isAbsolute(file) ? file : resolve(this.root, file);
    const lineNumber = Math.max(1, Math.trunc(line) || 1);
    const columnNumber = Math.max(1, Math.trunc(column) || 1);
    if (this.template === null) {
      if (!this.viewer || !absolute.startsWith(this.root + sep)) return null;
      return `/_profiler/open?file=${encodePath(relative(this.root, absolute))}#L${lineNumber}`;
    }
    const path = this.mapped(absolute);
    // `vscode://file/%f`: one slash between the host part and an absolute path (`file://%f` keeps the path's own).
    return this.template.replace(/((?<!\/)\/)?%([flc%])/g, (_, slash: string | undefined = '', key: string) => {
      if (key === 'f') return slash === '' ? encodePath(path) : `/${encodePath(path).replace(/^\//, '')}`;
      if (key === 'l') return `${slash}${lineNumber}`;
      if (key === 'c') return `${slash}${columnNumber}`;
      return `${slash}%`;
    });
  }

  private mapped(path: string): string {
    for (const { from, to } of this.pathMap) {
      if (path === from || path.startsWith(`${from}/`)) {
        return to + path.slice(from.length);
      }
    }
    return path;
  }
}

/** Places whose link is kept; past it the memory starts again. */
const PLACES_KEPT = 1000;

/** A path inside a URL: its slashes (and a Windows drive's colon) kept, anything that would end a part escaped. */
function encodePath(path: string): string {
  return encodeURI(path.replace(/\\/g, '/')).replace(
    /[?#&=+]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
