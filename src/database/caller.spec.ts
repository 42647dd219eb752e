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
  it("climbs further when the first frames it captures are none of the caller's", () => {
    // Thirty frames of code without a file (as a package's or the data layer's would be passed over) between it
    // and the caller: more than its first capture holds.
    let call = new Function('capture', 'return () => capture()')(captureCaller) as () => ReturnType<
      typeof captureCaller
    >;
    for (let i = 0; i < 20; i++) call = new Function('next', 'return () => next()')(call) as typeof call;
    const [line, caller] = [here(), call()];
    expect(caller).toEqual({ file: THIS_FILE, line, column: expect.any(Number) });
  });
});

describe('captureCaller, below an entry point', () => {
  /** `depth` frames of code without a file (as Kysely's own would be passed over) on top of `bottom`. */
  const nameless = (depth: number, bottom: () => ReturnType<typeof captureCaller>) => {
    let call = bottom;
    for (let i = 0; i < depth; i++) call = new Function('next', 'return () => next()')(call) as typeof call;
    return call;
  };

  it('captures below the entry: finds the caller past more frames than its deep capture holds', () => {
    // Forty frames between the capture and the entry: a capture from the top (32 frames deep) never reaches the
    // caller, so only the capture below the entry can name it.
    function entry(): ReturnType<typeof captureCaller> {
      return nameless(40, new Function('capture', 'entry', 'return () => capture(entry)')(captureCaller, entry))();
    }
    const [line, caller] = [here(), entry()];
    expect(caller).toEqual({ file: THIS_FILE, line, column: expect.any(Number) });
    // The same stack, captured from the top.
    function plain(): ReturnType<typeof captureCaller> {
      return nameless(40, new Function('capture', 'return () => capture()')(captureCaller))();
    }
    expect(plain()).toBeNull();
  });

  it('passes over nameless frames below the entry (executeTakeFirst calling execute)', () => {
    function entry(): ReturnType<typeof captureCaller> {
      return captureCaller(entry);
    }
    const [line, caller] = [here(), nameless(2, entry)()];
    expect(caller).toEqual({ file: THIS_FILE, line, column: expect.any(Number) });
  });

  it('captures from the top when the entry is not on the stack', () => {
    const elsewhere = () => null;
    const [line, caller] = [here(), nameless(3, () => captureCaller(elsewhere))()];
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

  it("gives the application's own files as paths, the data layer's specs included", () => {
    const repository = join(PROJECT, 'dist', 'shop', 'catalogue', 'product.repository.js');
    for (const name of both(repository)) expect(callerFile(name)).toBe(repository);
    const spaced = join(PROJECT, 'dist', 'my shop', 'résumé.js');
    expect(callerFile(pathToFileURL(spaced).href)).toBe(spaced);
    for (const name of both(THIS_FILE)) expect(callerFile(name)).toBe(THIS_FILE);
  });

  it('gives each module URL its own path, asked again and again (paths are kept by URL)', () => {
    const files = Array.from({ length: 20 }, (_, i) => join(PROJECT, 'dist', 'shop', `module-${i}.js`));
    for (let round = 0; round < 3; round++)
      for (const file of files) expect(callerFile(pathToFileURL(file).href)).toBe(file);
  });
});
