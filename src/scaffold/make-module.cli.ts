import { scaffoldModule, ScaffoldRefusal } from './scaffold-module.js';

/**
 * `npm run make:module -- <name>`: a new feature module in the project this is run from (see docs/EXTENDING.md).
 * Exit status 0 when it was written, 2 for a refused name or an existing module, 1 for anything else.
 */
async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (!name || rest.length > 0 || name.startsWith('-')) {
    process.stderr.write('Usage: npm run make:module -- <name>   (lower-case words joined by hyphens: gift-cards)\n');
    return 2;
  }
  try {
    const result = await scaffoldModule(process.cwd(), name);
    const lines = [
      ...result.created.map((path) => `created ${path}`),
      ...result.updated.map((path) => `updated ${path}`),
      '',
      `Next: npm run start:dev, then open /${name} and its panel in the profiler;`,
      `      npm run test:jest -- test/shop/${name} src/shop/${name} runs its tests.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldRefusal)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
