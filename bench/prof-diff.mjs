// The difference between two CPU profiles kept by the bench (bench/results/<scenario>.cpuprofile), function by
// function, as microseconds of self time per request: where one scenario's extra time goes against another's (the
// profiler off against profiled, a build against the one before).
//
//   node bench/run.mjs --no-build --profile=catalogue-off,catalogue --cpu-prof-seconds=10
//   node bench/prof-diff.mjs bench/results/catalogue-off.cpuprofile bench/results/catalogue.cpuprofile [--top=30]
//
// Each profile's loaded window and its request count are read from the <name>.window.json the bench writes beside
// it; a function's self time in the window divided by the requests in it is its cost per request. Node's and V8's
// own functions count as themselves here (writev, GC), not as their callers'.
import { existsSync, readFileSync } from 'node:fs';
import { summarise } from './lib/cpuprofile-summary.mjs';

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
const top = Number(args.find((a) => a.startsWith('--top='))?.slice(6) ?? 30);
if (files.length !== 2) {
  process.stderr.write('usage: node bench/prof-diff.mjs <before.cpuprofile> <after.cpuprofile> [--top=30]\n');
  process.exit(2);
}

function perRequest(file) {
  const windowFile = file.replace(/\.cpuprofile$/, '.window.json');
  if (!existsSync(windowFile)) throw new Error(`${windowFile} is missing: profiles made by bench/run.mjs have one`);
  const window = JSON.parse(readFileSync(windowFile, 'utf8'));
  if (!(window.requests > 0)) throw new Error(`${windowFile} has no request count (a profile kept by an older bench)`);
  const summary = summarise(JSON.parse(readFileSync(file, 'utf8')), {
    since: window.since,
    until: window.until,
    top: Infinity,
  });
  const functions = new Map(
    summary.functions.map((f) => [`${f.name}\u0000${f.location}`, { ...f, us: f.micros / window.requests }]),
  );
  return { functions, us: (summary.busyMs * 1000) / window.requests, requests: window.requests };
}

const [a, b] = files.map(perRequest);
const rows = [];
for (const key of new Set([...a.functions.keys(), ...b.functions.keys()])) {
  const before = a.functions.get(key)?.us ?? 0;
  const after = b.functions.get(key)?.us ?? 0;
  const f = b.functions.get(key) ?? a.functions.get(key);
  rows.push({ name: f.name, location: f.location || f.origin, before, after, delta: after - before });
}
rows.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta));
const us = (n) => n.toFixed(1);
const lines = [
  `${files[0]}: ${us(a.us)} µs busy a request (${a.requests} requests)`,
  `${files[1]}: ${us(b.us)} µs busy a request (${b.requests} requests)`,
  `difference: ${b.us >= a.us ? '+' : ''}${us(b.us - a.us)} µs a request; the largest changes of self time:`,
  '',
  '| Δ µs | before | after | function | where |',
  '|---:|---:|---:|---|---|',
  ...rows
    .slice(0, top)
    .map(
      (r) =>
        `| ${r.delta >= 0 ? '+' : ''}${us(r.delta)} | ${us(r.before)} | ${us(r.after)} | \`${r.name}\` | ${r.location} |`,
    ),
];
process.stdout.write(`${lines.join('\n')}\n`);
