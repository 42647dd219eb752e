import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { here } from '../../test/support/here.js';
import { callerFile, captureCaller } from './caller.js';

const THIS_FILE = fileURLToPath(import.meta.url);
const OWN_DIR = dirname(THIS_FILE);
const PROJECT = join(OWN_DIR, '..', '..');

describe('captureCaller', () => {
  it('names the code that called it, with its line', () => {
    const [line, caller] = [here(), captureCaller()];
    expect(caller).toEqual({ file: THIS_FILE, line, column: expect.any(Number) });
  });
});

describe('captureCaller, deep', () => {
  it('climbs further when the first frames it captures are none of the caller\'s', () => {
    // Thirty frames of code without a file (as a package's or the data layer's would be passed over) between it
    // and the caller: more than its first capture holds.
    let call = new Function('capture', 'return () => capture()')(captureCaller) as () => ReturnType<typeof captureCaller>;
    for (let i = 0; i < 20; i++) call = new Function('next', 'return () => next()')(call) as typeof call;
    const [line, caller] = [here(), call()];
    expect(caller).toEqual({ file: THIS_FILE, line, column: expect.any(Number) });
  });
});

describe('callerFile', () => {
  // ES modules' frames are file: URLs, CommonJS's and Jest's paths: both spellings pass the same verdicts.
  const both = (path: string) => [path, pathToFileURL(path).href];

  it('passes over Node itself, packages and the data layer', () => {
    expect(callerFile('node:internal/process/task_queues')).toBeNull();
    expect(callerFile(null)).toBeNull();
    expect(callerFile('')).toBeNull();
    for (const name of [
      ...both(join(PROJECT, 'node_modules', 'kysely', 'dist', 'esm', 'query-executor', 'query-executor-base.js')),
      ...both(join(OWN_DIR, 'query-recorder.js')),
      ...both(join(OWN_DIR, 'migrations', '0001-initial.js')),
    ]) {
      expect(callerFile(name)).toBeNull();
    }
  });

  it('gives the application\'s own files as paths, the data layer\'s specs included', () => {
    const repository = join(PROJECT, 'dist', 'shop', 'catalogue', 'product.repository.js');
    for (const name of both(repository)) expect(callerFile(name)).toBe(repository);
    const spaced = join(PROJECT, 'dist', 'my shop', 'résumé.js');
    expect(callerFile(pathToFileURL(spaced).href)).toBe(spaced);
    for (const name of both(THIS_FILE)) expect(callerFile(name)).toBe(THIS_FILE);
  });
});
