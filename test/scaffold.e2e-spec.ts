import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { IN_CI, POSTGRES_AVAILABLE } from './support/postgres.js';

/** What a copy of the project needs to build, lint and test: the files a clone has, not what a run leaves. */
const PROJECT = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'jest.config.js',
  '.prettierrc',
  '.prettierignore',
  '.eslintrc.js',
  '.gitignore',
  'src',
  'views',
  'test',
];

/** The core's suites that list what the core owns (migrations, tables, panels, toolbar blocks, slots). */
const CORE_SUITES = [
  'test/database.e2e-spec.ts',
  'src/database/cli',
  'test/profiler.e2e-spec.ts',
  'test/toolbar.e2e-spec.ts',
  'test/feature-module.e2e-spec.ts',
  'test/page-slots.e2e-spec.ts',
];

interface JestResults {
  numFailedTests: number;
  numPassedTests: number;
  testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>;
}

function files(root: string, dir = root): Map<string, string> {
  const found = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name === 'node_modules' || entry.name.startsWith('dist')) continue;
    if (entry.isDirectory()) for (const [file, content] of files(root, path)) found.set(file, content);
    else found.set(relative(root, path), readFileSync(path, 'utf8'));
  }
  return found;
}

/**
 * `npm run make:module` in a copy of the project, as a developer would run it: the module it writes builds, passes
 * lint and Prettier, and its own tests pass on SQLite and PostgreSQL beside the core's, and the only file it
 * changes outside the module's folders is AppModule, by one import.
 */
describe('npm run make:module (e2e)', () => {
  let project: string;
  let before: Map<string, string>;
  let made: SpawnSyncReturns<string>;

  const run = (command: string, args: string[], timeout = 180_000): SpawnSyncReturns<string> =>
    spawnSync(command, args, { cwd: project, encoding: 'utf8', timeout, env: { ...process.env, FORCE_COLOR: '0' } });
  const bin = (name: string) => join(project, 'node_modules', '.bin', name);
  const succeeded = (result: SpawnSyncReturns<string>) => [
    result.status,
    result.status === 0 ? '' : result.stdout + result.stderr,
  ];

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'shopkernel-make-module-'));
    for (const entry of PROJECT) cpSync(join(process.cwd(), entry), join(project, entry), { recursive: true });
    symlinkSync(join(process.cwd(), 'node_modules'), join(project, 'node_modules'), 'dir');
    before = files(project);
    made = run('npm', ['run', '--silent', 'make:module', '--', 'wishlist']);
  }, 120_000);
  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('writes the module and says what it wrote and what to do next', () => {
    expect(succeeded(made)).toEqual([0, '']);
    expect(made.stdout).toContain('created src/shop/wishlist/wishlist.module.ts\n');
    expect(made.stdout).toContain('created views/shop/wishlist/profiler/panels/wishlist.hbs\n');
    expect(made.stdout).toContain('created test/shop/wishlist/wishlist.e2e-spec.ts\n');
    expect(made.stdout).toContain('updated src/app.module.ts\n');
    expect(made.stdout).toContain('npm run test:jest -- test/shop/wishlist src/shop/wishlist');
  });

  it("changes nothing outside the module's folders but AppModule's imports", () => {
    const after = files(project);
    const folders = ['src/shop/wishlist/', 'views/shop/wishlist/', 'test/shop/wishlist/'];
    const added = [...after.keys()].filter((path) => !before.has(path));
    const changed = [...before.keys()].filter((path) => after.get(path) !== before.get(path));
    expect(added.filter((path) => !folders.some((folder) => path.startsWith(folder)))).toEqual([]);
    expect(added.length).toBe(20);
    expect(changed).toEqual(['src/app.module.ts']);

    const beforeLines = before.get('src/app.module.ts')!.split('\n');
    const afterLines = after.get('src/app.module.ts')!.split('\n');
    expect(afterLines.filter((line) => !beforeLines.includes(line))).toEqual([
      "import { WishlistModule } from './shop/wishlist/wishlist.module.js';",
      '    WishlistModule,',
    ]);
    expect(beforeLines.filter((line) => !afterLines.includes(line))).toEqual([]);
  });

  it('refuses to write the module a second time, or a module with a taken name', () => {
    const again = run('npm', ['run', '--silent', 'make:module', '--', 'wishlist']);
    expect([again.status, again.stderr.trim().split('\n').at(-1)]).toEqual([
      2,
      'src/shop/wishlist, views/shop/wishlist, test/shop/wishlist exist already: nothing was written.',
    ]);
    const taken = run(process.execPath, [join(project, 'dist-tools', 'scaffold', 'make-module.cli.js'), 'cart']);
    expect([taken.status, taken.stderr]).toEqual([
      2,
      '"cart" is taken by the shop or the profiler: choose another name.\n',
    ]);
  }, 60_000);

  it('builds with nest build, type-checks, and passes lint and Prettier', () => {
    expect(succeeded(run(bin('nest'), ['build']))).toEqual([0, '']);
    expect(existsSync(join(project, 'dist', 'shop', 'wishlist', 'wishlist.module.js'))).toBe(true);
    expect(succeeded(run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']))).toEqual([0, '']);
    const lint = spawnSync(bin('eslint'), ['--max-warnings', '0', '--ext', '.ts', 'src', 'test'], {
      cwd: project,
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, ESLINT_USE_FLAT_CONFIG: 'false' },
    });
    expect(succeeded(lint)).toEqual([0, '']);
    expect(succeeded(run(bin('prettier'), ['--check', '.']))).toEqual([0, '']);
  }, 300_000);

  it("passes its own tests on SQLite and PostgreSQL, and the core's beside it", () => {
    const output = join(project, 'jest-results.json');
    const jest = run(
      process.execPath,
      [
        '--experimental-vm-modules',
        'node_modules/jest/bin/jest.js',
        '--runInBand',
        '--json',
        `--outputFile=${output}`,
        'test/shop/wishlist',
        'src/shop/wishlist',
        ...CORE_SUITES,
      ],
      300_000,
    );
    expect(succeeded(jest)).toEqual([0, '']);
    const results = JSON.parse(readFileSync(output, 'utf8')) as JestResults;
    expect(results.numFailedTests).toBe(0);
    const passed = results.testResults
      .flatMap((suite) => suite.assertionResults)
      .filter((test) => test.status === 'passed')
      .map((test) => test.fullName);
    const own = (database: string) => passed.filter((name) => name.startsWith(`Wishlist on ${database} (e2e)`)).length;
    expect(own('SQLite')).toBe(6);
    if (IN_CI || POSTGRES_AVAILABLE) expect(own('PostgreSQL')).toBe(6);
    expect(passed.filter((name) => name.startsWith('WishlistService'))).toHaveLength(2);
    const suites = results.testResults.map((suite) => relative(project, suite.name)).sort();
    expect(suites).toEqual(
      expect.arrayContaining(['test/shop/wishlist/wishlist.e2e-spec.ts', 'src/shop/wishlist/wishlist.service.spec.ts']),
    );
    expect(suites.length).toBeGreaterThanOrEqual(CORE_SUITES.length + 2);
  }, 400_000);
});
