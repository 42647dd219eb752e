import { isMain } from '../cli/command-line.js';
import { scaffoldModule, ScaffoldRefusal } from './scaffold-module.js';

const USAGE = 'Usage: npm run make:module -- <name>   (lower-case words joined by hyphens: gift-cards)\n';

/**
 * `npm run make:module -- <name>`: a new feature module in the project at `root` (see docs/EXTENDING.md). Resolves
 * with the exit status: 0 when it was written, 2 for a usage mistake (no name, more than one), 1 for a refused
 * name or an existing module, said in one line.
 */
export async function makeModule(
  args: string[],
  root: string,
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  const [name, ...rest] = args;
  if (!name || rest.length > 0 || name.startsWith('-')) {
    err(USAGE);
    return 2;
  }
  try {
    const result = await scaffoldModule(root, name);
    const lines = [
      ...result.created.map((path) => `created ${path}`),
      ...result.updated.map((path) => `updated ${path}`),
      '',
      `Next: npm run start:dev, then open /${name} and its panel in the profiler;`,
      `      npm run test:jest -- test/shop/${name} src/shop/${name} runs its tests.`,
    ];
    out(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldRefusal)) throw error;
    err(`${error.message}\n`);
    return 1;
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await makeModule(
    process.argv.slice(2),
    process.cwd(),
    (text) => process.stdout.write(text),
    (text) => process.stderr.write(text),
  );
}
