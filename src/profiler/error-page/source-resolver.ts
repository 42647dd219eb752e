import { Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { AppConfig } from '../../config/app-config.js';
import { SourceMaps, type SourceLocation } from '../../lifecycle/errors/source-maps.js';

export type { SourceLocation };

export interface ExcerptLine {
  number: number;
  text: string;
  current: boolean;
}

const MAX_CACHED_FILES = 500;

/**
 * Maps compiled locations back to the original TypeScript (through the kernel's SourceMaps) and reads source lines
 * for code excerpts. Only error pages and panels call it; sources are read once and cached, so the error path does
 * not go back to the disk for a file it has seen.
 */
@Injectable()
export class SourceResolver {
  private readonly sources = new Map<string, string[] | null>();

  constructor(
    private readonly config: AppConfig,
    private readonly maps: SourceMaps,
  ) {}

  /** A stack frame's file (path or file: URL) and position, mapped to the original source when possible. */
  locate(file: string, line: number, column: number): Readonly<SourceLocation> {
    return this.maps.locate(file, line, column);
  }

  /** The numbered lines around `line` (1-based), that line marked; null when the source cannot be read. */
  excerpt(file: string, line: number, radius = 5): ExcerptLine[] | null {
    const lines = this.sourceLines(file);
    if (!lines || line < 1 || line > lines.length) return null;
    const from = Math.max(1, line - radius);
    const to = Math.min(lines.length, line + radius);
    const excerpt: ExcerptLine[] = [];
    for (let n = from; n <= to; n++) excerpt.push({ number: n, text: lines[n - 1], current: n === line });
    return excerpt;
  }

  /** The path relative to the project root when inside it, else as is. */
  relativePath(file: string): string {
    const root = this.config.projectDir;
    return file.startsWith(root + sep) ? relative(root, file) : file;
  }

  /** The inverse of relativePath: a path as shown, back to one the disk knows. */
  absolutePath(file: string): string {
    return isAbsolute(file) || file.startsWith('node:') ? file : resolve(this.config.projectDir, file);
  }

  /** Code that is not the application's: dependencies and Node itself. */
  isVendor(file: string): boolean {
    return file.includes(`${sep}node_modules${sep}`) || file.startsWith('node:') || !isAbsolute(file);
  }

  private sourceLines(file: string): string[] | null {
    if (this.sources.has(file)) return this.sources.get(file) ?? null;
    let lines: string[] | null = null;
    try {
      if (isAbsolute(file) && !this.isVendorUnreadable(file)) lines = readFileSync(file, 'utf8').split(/\r?\n/);
    } catch {
      lines = null;
    }
    remember(this.sources, file, lines);
    return lines;
  }

  private isVendorUnreadable(file: string): boolean {
    return file.startsWith('node:');
  }
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= MAX_CACHED_FILES) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}
