// Summarises a V8 .cpuprofile (written by `node --cpu-prof`): self time per function and per origin (our source
// folders, npm packages, Node's internals, GC), as a share of the busy time (idle excluded). Frames of dist/ are
// mapped back to src/*.ts through the build's source maps.
//
//   node bench/lib/cpuprofile-summary.mjs <file.cpuprofile> [--top=25] [--since=<µs>] [--until=<µs>]
//
// --since/--until keep the samples of a window (µs on the profile's clock: the bench marks where its load started
// and ended, and writes both to <name>.window.json beside the profile, which is read when present).
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const SPECIAL = new Set(['(garbage collector)', '(idle)', '(program)', '(root)']);

const maps = new Map();
function traceMap(file) {
  if (!maps.has(file)) {
    const mapFile = `${file}.map`;
    let map = null;
    try {
      if (existsSync(mapFile)) map = new TraceMap(readFileSync(mapFile, 'utf8'), pathToFileURL(mapFile).href);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** Where a frame comes from: a display location and an origin (category). */
function locate(callFrame) {
  const { url, lineNumber, columnNumber, functionName } = callFrame;
  const name = functionName || '(anonymous)';
  if (SPECIAL.has(name) && !url) return { name, location: '', origin: name };
  if (!url) return { name, location: '(native)', origin: 'V8 / native' };
  if (url.startsWith('node:')) return { name, location: url, origin: 'Node internals' };
  let path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    return {
      name,
      location: `${pkg}/${rest.slice(rest[0].startsWith('@') ? 2 : 1).join('/')}:${lineNumber + 1}`,
      origin: `npm: ${pkg}`,
    };
  }
  let line = lineNumber + 1;
  const map = path.endsWith('.js') ? traceMap(path) : null;
  if (map) {
    const original = originalPositionFor(map, { line: lineNumber + 1, column: Math.max(0, columnNumber) });
    if (original.source) {
      path = original.source.startsWith('file://')
        ? fileURLToPath(original.source)
        : resolve(path, '..', original.source);
      line = original.line ?? line;
    }
  }
  const rel = relative(ROOT, path);
  const parts = rel.split('/');
  let origin;
  if (parts[0] === 'src' || parts[0] === 'dist')
    origin =
      parts.length > 3
        ? `${parts[0]}/${parts[1]}/${parts[2]}`
        : parts.length > 2
          ? `${parts[0]}/${parts[1]}`
          : parts[0];
  else origin = parts[0].startsWith('..') ? 'other' : parts[0];
  return { name, location: `${rel}:${line}`, origin };
}

export function summarise(profile, { since = -Infinity, until = Infinity, top = 25 } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const where = new Map();
  const locateNode = (id) => {
    if (!where.has(id)) where.set(id, locate(byId.get(id).callFrame));
    return where.get(id);
  };
  const isOurs = (w) => w.origin.startsWith('src/') || w.origin.startsWith('npm: ') || w.origin.startsWith('dist/');
  const self = new Map();
  const attributed = new Map(); // node → nearest frame of ours or of a package (for Node's and V8's own time)
  const inclusive = new Map(); // function of src/ → time with it on the stack
  const inclusiveFiles = new Map(); // file of src/ → time with one of its functions on the stack
  let t = profile.startTime;
  let total = 0;
  let idle = 0;
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i];
    if (t < since || t > until) continue;
    const weight = i + 1 < timeDeltas.length ? Math.max(0, timeDeltas[i + 1]) : 0;
    const node = byId.get(samples[i]);
    if (!node) continue;
    if (node.callFrame.functionName === '(idle)') {
      idle += weight;
      continue;
    }
    total += weight;
    self.set(node.id, (self.get(node.id) ?? 0) + weight);
    let id = node.id;
    let owner = null;
    const seen = new Set();
    const seenFiles = new Set();
    while (id !== undefined) {
      const w = locateNode(id);
      if (owner === null && isOurs(w)) owner = id;
      if (w.origin.startsWith('src/') || w.origin.startsWith('dist/')) {
        const key = `${w.name}\u0000${w.location.replace(/:\d+$/, '')}`;
        if (!seen.has(key)) {
          seen.add(key);
          const f = inclusive.get(key) ?? { name: w.name, location: w.location, origin: w.origin, micros: 0 };
          f.micros += weight;
          inclusive.set(key, f);
        }
        const file = w.location.replace(/:\d+$/, '');
        if (!seenFiles.has(file)) {
          seenFiles.add(file);
          inclusiveFiles.set(file, (inclusiveFiles.get(file) ?? 0) + weight);
        }
      }
      id = parent.get(id);
    }
    if (owner !== null) attributed.set(owner, (attributed.get(owner) ?? 0) + weight);
    else attributed.set(node.id, (attributed.get(node.id) ?? 0) + weight);
  }
  const functions = new Map();
  const origins = new Map();
  for (const [id, micros] of self) {
    const where = locate(byId.get(id).callFrame);
    const key = `${where.name}\u0000${where.location}`;
    const f = functions.get(key) ?? { name: where.name, location: where.location, origin: where.origin, micros: 0 };
    f.micros += micros;
    functions.set(key, f);
    origins.set(where.origin, (origins.get(where.origin) ?? 0) + micros);
  }
  const pct = (micros) => (total > 0 ? (100 * micros) / total : 0);
  const owners = new Map();
  const ownerOrigins = new Map();
  for (const [id, micros] of attributed) {
    const w = locateNode(id);
    const key = `${w.name}\u0000${w.location}`;
    const f = owners.get(key) ?? { name: w.name, location: w.location, origin: w.origin, micros: 0 };
    f.micros += micros;
    owners.set(key, f);
    ownerOrigins.set(w.origin, (ownerOrigins.get(w.origin) ?? 0) + micros);
  }
  return {
    attributed: [...owners.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map((f) => ({ ...f, selfPct: pct(f.micros) })),
    attributedOrigins: [...ownerOrigins.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([origin, micros]) => ({ origin, micros, selfPct: pct(micros) })),
    inclusiveFiles: [...inclusiveFiles.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([file, micros]) => ({ file, micros, selfPct: pct(micros) })),
    inclusive: [...inclusive.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map((f) => ({ ...f, selfPct: pct(f.micros) })),
    busyMs: total / 1000,
    idleMs: idle / 1000,
    functions: [...functions.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map((f) => ({ ...f, selfPct: pct(f.micros) })),
    origins: [...origins.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([origin, micros]) => ({ origin, micros, selfPct: pct(micros) })),
  };
}

/**
 * The summary as Markdown tables. `compact` (BENCHMARKS.md): the origins and the cost centres only, six rows each;
 * the full form (`--profile`, the command line) adds self and inclusive tables.
 */
export function formatSummary(summary, { topOrigins = 14, topFunctions = 15, compact = false } = {}) {
  if (compact) return formatTables(summary, { topOrigins: 6, topFunctions: 6, only: true });
  return formatTables(summary, { topOrigins, topFunctions, only: false });
}

function formatTables(summary, { topOrigins, topFunctions, only }) {
  const lines = [];
  const fn = (f) => `| ${f.selfPct.toFixed(1)} | \`${f.name}\` | ${f.location || f.origin} |`;
  lines.push(
    `Busy ${summary.busyMs.toFixed(0)} ms (idle ${summary.idleMs.toFixed(0)} ms). Self time by origin; "with callees in Node/V8" adds the`,
  );
  lines.push(
    "time of Node's and V8's own functions (zlib, writev, GC-free natives…) to the nearest caller in src/ or a package:",
  );
  lines.push('');
  lines.push('| origin | self % | with callees in Node/V8 % |');
  lines.push('|---|---:|---:|');
  const withCallees = new Map(summary.attributedOrigins.map((o) => [o.origin, o.selfPct]));
  const names = [
    ...new Set([
      ...summary.origins.slice(0, topOrigins).map((o) => o.origin),
      ...summary.attributedOrigins.slice(0, topOrigins).map((o) => o.origin),
    ]),
  ];
  const selfOf = new Map(summary.origins.map((o) => [o.origin, o.selfPct]));
  names.sort((a, b) => (withCallees.get(b) ?? selfOf.get(b) ?? 0) - (withCallees.get(a) ?? selfOf.get(a) ?? 0));
  for (const name of names)
    lines.push(`| ${name} | ${(selfOf.get(name) ?? 0).toFixed(1)} | ${(withCallees.get(name) ?? 0).toFixed(1)} |`);
  // The first column is the figure (right-aligned), the rest text.
  const table = (title, header, rows) =>
    lines.push('', title, '', header, `|---:|${'---|'.repeat(header.split('|').length - 3)}`, ...rows);
  const costCentres = summary.attributed.slice(0, topFunctions).map(fn);
  if (only) {
    table('Cost centres (self time with their callees in Node/V8):', '| self+ % | function | where |', costCentres);
    return lines.join('\n');
  }
  table(
    'Top functions by self time:',
    '| self % | function | where |',
    summary.functions.slice(0, topFunctions).map(fn),
  );
  table(
    'Top functions by self time with their callees in Node/V8 (the cost centres in our code and in packages):',
    '| self+ % | function | where |',
    costCentres,
  );
  table(
    "Files of src/ by inclusive time (one of their functions on the stack; the kernel's dispatch is on every stack):",
    '| incl. % | file |',
    summary.inclusiveFiles.slice(0, topFunctions).map((f) => `| ${f.selfPct.toFixed(1)} | ${f.file} |`),
  );
  table(
    'Functions of src/ by inclusive time (on the stack):',
    '| incl. % | function | where |',
    summary.inclusive.slice(0, topFunctions).map(fn),
  );
  return lines.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    process.stderr.write(
      'usage: node bench/lib/cpuprofile-summary.mjs <file.cpuprofile> [--top=25] [--since=µs] [--until=µs]\n',
    );
    process.exit(2);
  }
  // The bench writes the loaded window beside each profile it keeps (<name>.window.json); --since/--until override it.
  const windowFile = file.replace(/\.cpuprofile$/, '.window.json');
  const window = windowFile !== file && existsSync(windowFile) ? JSON.parse(readFileSync(windowFile, 'utf8')) : {};
  const opts = {
    ...window,
    ...Object.fromEntries(rest.map((a) => a.replace(/^--/, '').split('=')).map(([k, v]) => [k, Number(v)])),
  };
  const summary = summarise(JSON.parse(readFileSync(file, 'utf8')), opts);
  process.stdout.write(`${formatSummary(summary)}\n`);
}
