// The application's Node options, read from one place (node --test bench/lib/): nest-cli.json's `exec`, which
// `npm start` and `npm run start:dev` run the server with, `npm run start:prod` repeats and the bench passes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { appNodeArgs } from './app-env.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('the options are those of nest-cli.json exec after its binary, none when it names no exec', () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'app-env-test-'));
  try {
    writeFileSync(join(dir, 'nest-cli.json'), JSON.stringify({ exec: ' node  --max-semi-space-size=4 --jitless ' }));
    assert.deepEqual(appNodeArgs(dir), ['--max-semi-space-size=4', '--jitless']);
    writeFileSync(join(dir, 'nest-cli.json'), JSON.stringify({ sourceRoot: 'src' }));
    assert.deepEqual(appNodeArgs(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm run start:prod starts the build with the options npm start passes', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const options = appNodeArgs();
  assert.ok(options.includes('--max-semi-space-size=16'), `nest-cli.json exec: ${options.join(' ')}`);
  assert.equal(scripts['start:prod'], ['node', ...options, 'dist/main.js'].join(' '));
  assert.equal(scripts.start, 'nest start');
  assert.equal(scripts['start:dev'], 'nest start --watch');
});
