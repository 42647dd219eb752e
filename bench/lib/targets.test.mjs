// The verdicts of bench/lib/targets.mjs on fixed figures (node --test bench/lib/): the bench's own arithmetic, which
// no measured run can check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuMicros } from './cpu-time.mjs';
import { verdicts } from './targets.mjs';

const MB = 2 ** 20;
/** Figures that meet every target by a small margin. */
const meeting = () => ({
  'app-otel': { rps: 1000, p99: 10, cpu: 900 },
  'static-profiled': { rps: 1500, p99: 10, cpu: 600 },
  'static-off': { rps: 3000, p99: 5, cpu: 300 },
  'floor-0': { rps: 5000, p99: 3, cpu: 100 },
  'floor-3': { rps: 3000, p99: 4, cpu: 300 },
  'floor-5': { rps: 1000, p99: 9, cpu: 600 },
  'debug-404': { rps: 700, p99: 12, cpu: 900 },
  'catalogue-off': { rps: 900, p99: 15, cpu: 1000 },
  catalogue: { rps: 700, p99: 20, cpu: 1400 },
});
const memory = (settledMb, growthMb, requests = 100_000) => ({
  from: { requests: 10_000 },
  last: { requests, settled: { rss: settledMb * MB } },
  rssGrowth: growthMb * MB,
});
const failed = (list) => list.filter((v) => !v.met).map((v) => v.target);

test('figures at the targets meet every one of them', () => {
  const list = verdicts(meeting(), memory(250, 10));
  assert.equal(list.length, 8);
  assert.deepEqual(failed(list), []);
});

test('each figure just past its target fails that target alone', () => {
  const cases = [
    ['app-otel', { rps: 1001 }, 'profiled `/` req/s ≥ 1.5 × app-otel req/s'],
    ['app-otel', { cpu: 899 }, 'app-otel CPU a request ≥ 1.5 × profiled `/` CPU a request'],
    ['static-profiled', { p99: 10.01 }, 'profiled `/` p99 ≤ app-otel p99'],
    [
      'static-off',
      { cpu: 299 },
      "profiler's added CPU on `/` (profiled − off) ≤ 1.5 × the floor's (level 3 − level 0)",
    ],
    ['debug-404', { cpu: 901 }, "debug 404 page CPU ≤ 1.5 × the floor's level 5"],
    ['catalogue', { cpu: 1401 }, '`/products?page=2` profiled CPU ≤ 1.4 × profiler off'],
  ];
  for (const [id, change, target] of cases) {
    const rows = meeting();
    Object.assign(rows[id], change);
    assert.deepEqual(failed(verdicts(rows, memory(250, 10))), [target], `${id} ${JSON.stringify(change)}`);
  }
});

test('memory: over 250 MB settled, over 10 MB of growth, or fewer than 100,000 requests is not met', () => {
  assert.deepEqual(failed(verdicts(meeting(), memory(251, 10))), ['RSS settles at ≤ 250 MB under load']);
  const growth = 'RSS grows ≤ 10 MB from the 10,000th request to the 100,000th';
  assert.deepEqual(failed(verdicts(meeting(), memory(200, 10.5))), [growth]);
  assert.deepEqual(failed(verdicts(meeting(), memory(200, 1, 6_000))), [growth]);
  assert.equal(verdicts(meeting(), null).length, 6);
});

test('a target whose figures were not measured is not met', () => {
  const rows = meeting();
  delete rows['app-otel'];
  delete rows['floor-5'];
  assert.deepEqual(failed(verdicts(rows, null)), [
    'profiled `/` req/s ≥ 1.5 × app-otel req/s',
    'app-otel CPU a request ≥ 1.5 × profiled `/` CPU a request',
    'profiled `/` p99 ≤ app-otel p99',
    "debug 404 page CPU ≤ 1.5 × the floor's level 5",
  ]);
});

test("cpuMicros reads this process's CPU time, and it grows with work", () => {
  const before = cpuMicros(process.pid);
  const until = process.cpuUsage().user + 50_000;
  while (process.cpuUsage().user < until);
  const after = cpuMicros(process.pid);
  assert.ok(before > 0);
  assert.ok(after > before, `${after} > ${before}`);
});
