import { Injectable, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from '../../config/app-config.js';
import { PROFILER_PATH } from '../profiler-path.js';

/** A static file of the toolbar, with the URL that names its version (so that a browser may cache it for good). */
export interface ToolbarAsset {
  body: Buffer;
  contentType: string;
  url: string;
}

/**
 * The toolbar's script and stylesheet (views/profiler/assets): read once at start and served by the profiler under
 * a URL holding their hash, so a page loads them once per version, and a page's own bytes grow by a few lines only.
 */
@Injectable()
export class ToolbarAssets implements OnModuleInit {
  private files = new Map<string, ToolbarAsset>();

  constructor(private readonly config: AppConfig) {}

  onModuleInit(): void {
    const dir = join(this.config.projectDir, 'views', 'profiler', 'assets');
    for (const [name, contentType] of [
      ['toolbar.js', 'text/javascript; charset=utf-8'],
      ['toolbar.css', 'text/css; charset=utf-8'],
    ]) {
      const body = readFileSync(join(dir, name));
      const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
      this.files.set(name, { body, contentType, url: `${PROFILER_PATH}/${name}?v=${version}` });
    }
  }

  get script(): ToolbarAsset {
    return this.files.get('toolbar.js')!;
  }

  get stylesheet(): ToolbarAsset {
    return this.files.get('toolbar.css')!;
  }
}
