import { Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import hbs from 'hbs';
import { existsSync, readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from '../config/app-config.js';

type Template = (context: unknown, options?: { data?: unknown }) => string;

/** Folders of views/ that are not the shop's pages: the profiler's and the error pages' own templates. */
const NOT_SHOP = new Set(['profiler', 'error']);

/**
 * The shop's Handlebars partials and slots, on the hbs view engine (a global of the hbs package):
 * - views/partials/**\/*.hbs are partials (`shop/price.hbs` is `{{> shop/price}}`);
 * - a template at views/<anywhere>/slots/<name>.hbs fills the slot `<name>`: `{{slot "header-links"}}` in the layout
 *   renders every one, in path order, with the page's context. A feature module adds a header link or a product
 *   action by adding a file in its own views folder, without editing the layout or another module's page.
 * Read at start; without the view cache (development) read again after any change under views/. Pages are compiled
 * once in every mode (Express's and hbs's caches, `configureApp`): in development a change under views/ empties
 * both at once, so an edited page shows at the next request and an unchanged one is never compiled again.
 * Read synchronously, not with hbs's own registerPartials: that reads asynchronously and queues the renders asked
 * for meanwhile, which then run outside their request's AsyncLocalStorage context.
 */
@Injectable()
export class ShopViews implements OnModuleInit, OnModuleDestroy {
  private slots = new Map<string, Template[]>();
  private watcher: FSWatcher | undefined;
  private reloading: NodeJS.Timeout | undefined;
  private readonly viewsDir: string;

  constructor(
    private readonly config: AppConfig,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    this.viewsDir = join(config.projectDir, 'views');
  }

  onModuleInit(): void {
    this.load();
    const filled = (name: string): Template[] => this.slots.get(name) ?? [];
    hbs.registerHelper('slot', function (this: unknown, name: string, helper: { data?: unknown }) {
      return new hbs.handlebars.SafeString(filled(name).map((render) => render(this, { data: helper.data })).join(''));
    });
    if (!this.config.viewCache) this.watch();
  }

  onModuleDestroy(): void {
    this.watcher?.close();
    clearTimeout(this.reloading);
  }

  private load(): void {
    registerPartials(join(this.viewsDir, 'partials'));
    const slots = new Map<string, Template[]>();
    for (const file of templates(this.viewsDir)) {
      const slot = slotName(file);
      if (!slot) continue;
      const list = slots.get(slot) ?? [];
      list.push(hbs.handlebars.compile(readFileSync(file, 'utf8')) as Template);
      slots.set(slot, list);
    }
    this.slots = slots;
  }

  private watch(): void {
    try {
      this.watcher = watch(this.viewsDir, { recursive: true }, () => {
        this.forgetCompiledPages();
        // Editors write a file in several steps: read once they are done.
        clearTimeout(this.reloading);
        this.reloading = setTimeout(() => this.reload(), 20);
        this.reloading.unref();
      });
      this.watcher.unref();
      this.watcher.on('error', () => this.watcher?.close());
    } catch {
      // A views folder that cannot be watched keeps what was read at start.
    }
  }

  /** Compiled pages and layouts (hbs) and the names Express resolved to files: compiled again at their next use. */
  private forgetCompiledPages(): void {
    (hbs as unknown as { cache: object }).cache = {};
    const express = this.adapterHost?.httpAdapter?.getInstance<{ cache?: object }>();
    if (express?.cache) express.cache = Object.create(null) as object;
  }

  private reload(): void {
    try {
      this.load();
    } catch {
      // A template saved half-written (a syntax error): the next change reads it again.
    }
  }
}

/** `views/shop/wishlist/slots/header-links.hbs` fills `header-links`; undefined for a template outside a slots folder. */
function slotName(file: string): string | undefined {
  const match = /[\\/]slots[\\/]([^\\/]+)\.hbs$/.exec(file);
  return match?.[1];
}

/** Every .hbs under views/ but the profiler's and the error pages', in path order. */
function templates(viewsDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, top: boolean): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory()) {
        if (!(top && NOT_SHOP.has(entry.name))) walk(join(dir, entry.name), false);
      } else if (entry.name.endsWith('.hbs')) found.push(join(dir, entry.name));
    }
  };
  walk(viewsDir, true);
  return found;
}

function registerPartials(dir: string, prefix = ''): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) registerPartials(join(dir, entry.name), `${prefix}${entry.name}/`);
    else if (entry.name.endsWith('.hbs'))
      hbs.registerPartial(`${prefix}${entry.name.slice(0, -4)}`.replace(/-/g, '_'), readFileSync(join(dir, entry.name), 'utf8'));
  }
}
