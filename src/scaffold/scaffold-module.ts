import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { withModuleImport } from './app-module-import.js';
import { moduleFiles, moduleFolders } from './module-files.js';
import { invalidModuleName, moduleNames } from './module-names.js';

/** A module name the scaffold refuses, or a module that exists already: the developer's mistake, said plainly. */
export class ScaffoldRefusal extends Error {}

/** What the scaffold did: the files it wrote, and AppModule. */
export interface ScaffoldResult {
  created: string[];
  updated: string[];
}

const APP_MODULE = 'src/app.module.ts';

/**
 * Writes a new feature module into the project at `root` (its code, views and tests, each in the module's own
 * folder) and imports it in AppModule, the one file outside those folders it changes. TypeScript is formatted with
 * the project's Prettier settings. Nothing is written when the name is refused or any folder exists.
 */
export async function scaffoldModule(root: string, name: string): Promise<ScaffoldResult> {
  const invalid = invalidModuleName(name);
  if (invalid) throw new ScaffoldRefusal(invalid);
  const n = moduleNames(name);
  const taken = moduleFolders(n).filter((folder) => existsSync(join(root, folder)));
  if (taken.length > 0)
    throw new ScaffoldRefusal(
      `${taken.join(', ')} ${taken.length === 1 ? 'exists' : 'exist'} already: nothing was written.`,
    );
  const appModulePath = join(root, APP_MODULE);
  const appModuleSource = readFileSync(appModulePath, 'utf8');
  // `app` would be a second AppModule, `profiler-mcp` a second ProfilerMcpModule: AppModule would no longer build.
  if (new RegExp(`\\b${n.pascal}Module\\b`).test(appModuleSource))
    throw new ScaffoldRefusal(
      `"${name}" would be ${n.pascal}Module, a name ${APP_MODULE} already uses: choose another name. Nothing was written.`,
    );
  const appModule = withModuleImport(appModuleSource, {
    className: `${n.pascal}Module`,
    from: `./shop/${n.kebab}/${n.kebab}.module.js`,
  });

  const files = await Promise.all(
    moduleFiles(n).map(async (file) => ({ ...file, content: await formatted(join(root, file.path), file.content) })),
  );
  for (const file of files) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true });
    writeFileSync(join(root, file.path), file.content, { flag: 'wx' });
  }
  writeFileSync(appModulePath, await formatted(appModulePath, appModule));
  return { created: files.map((file) => file.path), updated: [APP_MODULE] };
}

/** TypeScript through Prettier with the project's settings; templates as they are (Prettier leaves them alone). */
async function formatted(path: string, content: string): Promise<string> {
  if (!path.endsWith('.ts')) return content;
  const options = await resolveConfig(path);
  return format(content, { ...options, filepath: path });
}
