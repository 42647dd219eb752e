import { Injectable } from '@nestjs/common';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, relative, resolve, sep } from 'node:path';
import { AppConfig } from '../../config/app-config.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { highlightExcerpt } from '../error-page/code-highlighter.js';
import { ProfilerViews, type RenderedPage } from '../views/profiler-views.js';

/** What the source view shows: code and templates, never data, secrets or dotfiles (.env, .git). */
const SHOWN_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.hbs', '.css', '.json', '.md']);
const MAX_BYTES = 1024 * 1024;

/**
 * `/_profiler/open?file=src/x.ts&line=12`: a file of the project, highlighted, its line marked, where file:line links
 * lead when no editor is configured (PROFILER_EDITOR), as Symfony's profiler opens files. Only code under the project
 * root (its dependencies included), nothing hidden and nothing under var/ (the databases).
 */
@Injectable()
export class SourceFilePage {
  constructor(
    private readonly config: AppConfig,
    private readonly views: ProfilerViews,
  ) {}

  render(file: unknown, line: unknown): RenderedPage {
    const path = typeof file === 'string' ? this.readable(file) : null;
    if (path === null)
      throw new NotFoundHttpException(`The file "${typeof file === 'string' ? file : ''}" cannot be opened.`);
    const lines = readFileSync(path, 'utf8').split(/\r?\n/);
    const current = typeof line === 'string' && /^\d{1,7}$/.test(line) ? Number(line) : 0;
    const shown = relative(this.config.projectDir, path);
    const excerpt = lines.map((text, i) => ({ number: i + 1, text, current: i + 1 === current }));
    return this.views.page('source-file', {
      title: current > 0 ? `${shown}:${current}` : shown,
      file: shown,
      line: current > 0 ? current : null,
      lineCount: lines.length,
      // Cached per file: the marked line is this request's.
      lines: highlightExcerpt(path, excerpt).map((l) => ({ ...l, current: l.number === current })),
    });
  }

  /** The file's real path when the page may show it, else null. */
  private readable(file: string): string | null {
    const root = this.config.projectDir;
    if (file === '' || file.includes('\0')) return null;
    const candidate = resolve(root, file);
    if (!inside(root, candidate)) return null;
    const parts = relative(root, candidate).split(sep);
    if (
      parts[0] === 'var' ||
      parts.some((part) => part.startsWith('.')) ||
      !SHOWN_EXTENSIONS.has(extname(candidate).toLowerCase())
    )
      return null;
    try {
      // A symbolic link may not lead out of the project (node_modules itself may be one: its target's files stay allowed).
      const real = realpathSync(candidate);
      if (!inside(root, real) && !inside(realpathSync(resolve(root, 'node_modules')), real)) return null;
      const stat = statSync(real);
      return stat.isFile() && stat.size <= MAX_BYTES ? real : null;
    } catch {
      return null;
    }
  }
}

function inside(root: string, path: string): boolean {
  return path.startsWith(root + sep);
}
