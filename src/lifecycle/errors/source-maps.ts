import { Injectable } from '@nestjs/common';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SourceLocation {
  /** Absolute path of the original source (the .ts file when a source map leads there). */
  file: string;
  line: number;
  column: number;
}

const MAX_CACHED_MAPS = 500;
/** Locations already mapped: every 404 is thrown from the same line, and its log entry asks for it each time. */
const MAX_CACHED_LOCATIONS = 5000;

/**
 * Compiled locations back to the TypeScript they were built from, through the `.js.map` files `nest build` writes
 * beside the output. One cache for the process: the kernel's error log and the profiler's pages (frames, query
 * callers) ask about the same few files, and a map is parsed once.
 */
@Injectable()
export class SourceMaps {
  private readonly maps = new Map<string, TraceMap | null>();
  private readonly locations = new Map<string, Readonly<SourceLocation>>();

  /**
   * A stack frame's file (path or file: URL) and position (1-based line and column), mapped when a map leads on.
   * The answer is shared by every caller that asks for the same position: it is frozen.
   */
  locate(file: string, line: number, column: number): Readonly<SourceLocation> {
    const key = `${line}:${column}:${file}`;
    let location = this.locations.get(key);
    if (location === undefined) {
      location = Object.freeze(this.map(file, line, column));
      if (this.locations.size >= MAX_CACHED_LOCATIONS)
        this.locations.delete(this.locations.keys().next().value as string);
      this.locations.set(key, location);
    }
    return location;
  }

  /** Never throws: a frame's file may be anything a stack holds (a `file:` URL with a host is refused by fileURLToPath). */
  private map(file: string, line: number, column: number): SourceLocation {
    try {
      return this.mapOrThrow(file, line, column);
    } catch {
      return { file, line, column };
    }
  }

  private mapOrThrow(file: string, line: number, column: number): SourceLocation {
    const path = file.startsWith('file://') ? fileURLToPath(file) : file;
    if (!isAbsolute(path) || !path.endsWith('.js')) return { file: path, line, column };
    const map = this.mapFor(path);
    if (!map) return { file: path, line, column };
    const original = originalPositionFor(map, { line, column: Math.max(0, column - 1) });
    if (original.source === null || original.line === null) return { file: path, line, column };
    const source = original.source.startsWith('file://')
      ? fileURLToPath(original.source)
      : resolve(dirname(path), original.source);
    return { file: source, line: original.line, column: (original.column ?? 0) + 1 };
  }

  private mapFor(path: string): TraceMap | null {
    if (this.maps.has(path)) return this.maps.get(path) ?? null;
    let map: TraceMap | null = null;
    try {
      map = readMap(path);
    } catch {
      map = null;
    }
    if (this.maps.size >= MAX_CACHED_MAPS) this.maps.delete(this.maps.keys().next().value as string);
    this.maps.set(path, map);
    return map;
  }
}

/** The last `sourceMappingURL` comment of a compiled file: the one that counts when a bundler left several. */
const MAPPING_URL = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/gm;

/**
 * The map a compiled file names in its `sourceMappingURL` comment (a file beside it, or inline as a data: URL, as
 * `inlineSourceMap` and ts-node write it), else the `.js.map` beside it (a build that strips comments).
 */
function readMap(path: string): TraceMap | null {
  let url: string | undefined;
  for (const match of readFileSync(path, 'utf8').matchAll(MAPPING_URL)) url = match[1];
  if (url?.startsWith('data:')) {
    const comma = url.indexOf(',');
    const payload = url.slice(comma + 1);
    const json = /;base64$/.test(url.slice(0, comma))
      ? Buffer.from(payload, 'base64').toString('utf8')
      : decodeURIComponent(payload);
    return new TraceMap(json, path);
  }
  const mapFile = url
    ? url.startsWith('file://')
      ? fileURLToPath(url)
      : resolve(dirname(path), decodeURIComponent(url))
    : `${path}.map`;
  return existsSync(mapFile) ? new TraceMap(readFileSync(mapFile, 'utf8'), mapFile) : null;
}
