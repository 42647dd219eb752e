import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import hbs from 'hbs';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { registerExceptionFramesHelper } from '../error-page/exception-frames.helper.js';
import { AppConfig } from '../../config/app-config.js';
import { EditorLinks } from '../editor/editor-links.js';
import { registerEditorHelpers } from '../editor/editor-helpers.js';
import { SourceIndex } from '../editor/source-index.js';

type Template = (context: object) => string;

/** A rendered profiler page and the headers it must be sent with. */
export interface RenderedPage {
  html: string;
  headers: Record<string, string>;
}

/**
 * The profiler's templates (views/profiler): compiled once at start, in their own Handlebars environment so the
 * application's helpers and partials cannot collide with them; without the view cache (development), compiled
 * again after a file under views/profiler or the shared error partials changes, as the shop's views are read
 * again. Pages are self-contained (inline CSS and one small inline script, no external asset) and sent with a
 * strict Content-Security-Policy whose nonce is fresh per page.
 */
@Injectable()
export class ProfilerViews implements OnModuleInit, OnModuleDestroy {
  private handlebars = hbs.create().handlebars;
  private readonly templates = new Map<string, Template>();
  private css = '';
  /** The pages' one script (copy buttons, the menu's current tab in view), inlined with the page's nonce. */
  private script = '';
  /** Development: the watchers of the template folders, and whether a file changed since the last compile. */
  private watchers: FSWatcher[] = [];
  private stale = false;

  constructor(
    private readonly config: AppConfig,
    private readonly links: EditorLinks,
    private readonly sources: SourceIndex,
  ) {}

  onModuleInit(): void {
    this.load();
    if (!this.config.viewCache) this.watch();
  }

  onModuleDestroy(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }

  private get root(): string {
    return join(this.config.projectDir, 'views', 'profiler');
  }

  private get shared(): string {
    return join(this.config.projectDir, 'views', 'error', 'partials');
  }

  private load(): void {
    const { root, shared } = this;
    this.handlebars = hbs.create().handlebars;
    this.templates.clear();
    this.css = readFileSync(join(root, 'profiler.css'), 'utf8') + readFileSync(join(shared, 'exception-chain.css'), 'utf8');
    // Inlined in a <script> element: a "</" in it would end the element early.
    this.script = readFileSync(join(root, 'assets', 'profiler.js'), 'utf8').replace(/<\//g, '<\\/');
    for (const file of [...hbsFiles(join(root, 'partials')), ...hbsFiles(shared)]) {
      this.handlebars.registerPartial(basename(file, '.hbs'), readFileSync(file, 'utf8'));
    }
    this.handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
    registerEditorHelpers(this.handlebars, this.links, this.sources);
    registerExceptionFramesHelper(this.handlebars, shared, this.links);
    for (const file of hbsFiles(root)) this.templates.set(basename(file, '.hbs'), this.compile(file));
    // The core's panels and toolbar blocks, then a feature module's, kept in its own views folder
    // (views/shop/wishlist/profiler/panels/wishlist.hbs), so that adding one edits nothing of the profiler's.
    for (const base of [root, ...moduleProfilerDirs(join(this.config.projectDir, 'views'))]) {
      for (const dir of ['panels', 'toolbar']) {
        for (const file of hbsFiles(join(base, dir))) this.templates.set(`${dir}/${basename(file, '.hbs')}`, this.compile(file));
      }
    }
  }

  /** Recompiles at the next page once anything changes (a template, a partial, the CSS, the script). */
  private watch(): void {
    const changed = (): void => {
      this.stale = true;
    };
    for (const dir of [join(this.config.projectDir, 'views')]) {
      try {
        const watcher = watch(dir, { recursive: true }, changed);
        // Never what keeps the process alive, and a watcher that fails only stops the reloading.
        watcher.unref();
        watcher.on('error', () => watcher.close());
        this.watchers.push(watcher);
      } catch {
        // A folder that cannot be watched: its templates stay as they were compiled.
      }
    }
  }

  hasPanel(name: string): boolean {
    return this.templates.has(`panels/${name}`);
  }

  hasToolbarBlock(name: string): boolean {
    return this.templates.has(`toolbar/${name}`);
  }

  /** A view without the page layout (a panel, the toolbar). */
  fragment(name: string, model: object): string {
    if (this.stale) {
      this.stale = false;
      this.load();
    }
    const template = this.templates.get(name);
    if (!template) throw new Error(`No profiler template "${name}" in views/profiler.`);
    return template(model);
  }

  /** A whole profiler page: the layout around the named view. */
  page(name: string, model: { title: string; [key: string]: unknown }): RenderedPage {
    const nonce = randomBytes(16).toString('hex');
    const body = this.fragment(name, model);
    const html = this.fragment('layout', { ...model, body, css: this.css, script: this.script, nonce });
    return {
      html,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`,
        'Referrer-Policy': 'same-origin',
        'X-Content-Type-Options': 'nosniff',
      },
    };
  }

  private compile(file: string): Template {
    return this.handlebars.compile(readFileSync(file, 'utf8'), { strict: false });
  }
}

function hbsFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.hbs')).sort().map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** The `profiler/` folders of the feature modules' views (any depth below views/, the profiler's own excepted). */
function moduleProfilerDirs(viewsDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (depth === 0 && (entry.name === 'profiler' || entry.name === 'error')) continue;
      if (entry.name === 'profiler') found.push(path);
      else if (depth < 4) walk(path, depth + 1);
    }
  };
  walk(viewsDir, 0);
  return found;
}
