import { Injectable } from '@nestjs/common';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppConfig } from '../../config/app-config.js';

/** A place in the project's sources, relative to the project root. */
export interface SourcePlace {
  file: string;
  line: number;
}

/** The folders whose TypeScript declares the classes the panels name (controllers, listeners, the tests' fixtures). */
const SOURCE_DIRS = ['src', 'test'];
const CLASS = /^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/;

/**
 * Where the classes and methods the panels name by `Class::method` (controllers, kernel listeners) are declared,
 * and where a template lives: panels receive names, not positions, so the sources are read once, on the first
 * name asked for (a profiler page, never a request of the application), and kept.
 */
@Injectable()
export class SourceIndex {
  private classes?: Map<string, SourcePlace>;
  private readonly methods = new Map<string, SourcePlace | null>();

  constructor(private readonly config: AppConfig) {}

  /** `Class::method`, `Class.method` or `Class`: where it is declared, or null when the project does not declare it. */
  symbol(name: string): SourcePlace | null {
    const match = /^([A-Za-z_$][\w$]*)(?:(?:::|\.)([A-Za-z_$][\w$]*))?$/.exec(name.trim());
    if (!match) return null;
    const place = this.classIndex().get(match[1]);
    if (!place || !match[2]) return place ?? null;
    const key = `${match[1]}.${match[2]}`;
    if (!this.methods.has(key)) this.methods.set(key, this.method(place, match[2]));
    return this.methods.get(key) ?? place;
  }

  /** A view's name (`shop/catalogue/product`) as its file under views/, when there is one. */
  template(name: string): SourcePlace | null {
    if (!/^[\w-]+(\/[\w-]+)*$/.test(name)) return null;
    const file = join('views', `${name}.hbs`);
    return existsSync(join(this.config.projectDir, file)) ? { file, line: 1 } : null;
  }

  private classIndex(): Map<string, SourcePlace> {
    if (this.classes) return this.classes;
    const classes = new Map<string, SourcePlace>();
    for (const dir of SOURCE_DIRS) {
      for (const path of typeScriptFiles(join(this.config.projectDir, dir))) {
        const lines = readFileSync(path, 'utf8').split('\n');
        lines.forEach((text, i) => {
          const match = CLASS.exec(text);
          // The application's declaration wins over a test's class of the same name.
          if (match && !classes.has(match[1]))
            classes.set(match[1], { file: relative(this.config.projectDir, path), line: i + 1 });
        });
      }
    }
    return (this.classes = classes);
  }

  /** The method's first line after its class's, before the class ends (the first line back at column 0). */
  private method(place: SourcePlace, name: string): SourcePlace | null {
    const lines = readFileSync(join(this.config.projectDir, place.file), 'utf8').split('\n');
    const declaration = new RegExp(
      `^\\s+(?:(?:public|private|protected|static|async|override|readonly)\\s+)*${name.replace(/\$/g, '\\$')}\\s*[(<]`,
    );
    for (let i = place.line; i < lines.length && !/^}/.test(lines[i]); i++) {
      if (declaration.test(lines[i])) return { file: place.file, line: i + 1 };
    }
    return null;
  }
}

function typeScriptFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
