import type { ProfileComparison, Timed } from '../comparison/profile-comparison.js';
import { mebibytes, ms, msDelta } from '../views/figures.js';
import { oneLine, withinBudget } from './digest-text.js';
import type { Digest } from './profile-digests.js';

const TEXT_BUDGET = 3500;
/** Changes smaller than this are noise between two runs of the same code. */
const NOTICEABLE_MS = 0.5;

function change(t: Timed): string {
  if (t.aMs === null) return `${t.name}: only in b (${ms(t.bMs!)})`;
  if (t.bMs === null) return `${t.name}: only in a (${ms(t.aMs)})`;
  return `${t.name}: ${ms(t.aMs)} -> ${ms(t.bMs)} (${msDelta(t.deltaMs!)})`;
}

/** A comparison as a few lines: what a model needs to say why b differs from a. */
export function comparisonDigest(c: ProfileComparison): Digest {
  const { a, b, queries } = c;
  const lines = [
    `a: ${a.token} ${a.method} ${a.url} -> ${a.status}`,
    `b: ${b.token} ${b.method} ${b.url} -> ${b.status}`,
    `Total ${change(c.duration).replace(/^total: /, '')}`,
    ...(c.controller ? [`Controller ${change(c.controller)}`] : []),
    ...c.events.filter((e) => e.deltaMs === null || Math.abs(e.deltaMs) >= NOTICEABLE_MS).map(change),
    ...(a.memoryPeakBytes !== null && b.memoryPeakBytes !== null
      ? [`Memory peak ${mebibytes(a.memoryPeakBytes)} -> ${mebibytes(b.memoryPeakBytes)}`]
      : []),
    ...(a.responseBytes !== b.responseBytes
      ? [`Response size ${a.responseBytes ?? '?'} -> ${b.responseBytes ?? '?'} bytes`]
      : []),
    `Queries ${queries.aCount} (${ms(queries.aMs)}) -> ${queries.bCount} (${ms(queries.bMs)}): ${queries.added.length} statements added, ${queries.removed.length} removed, ${queries.changed.length} run a different number of times`,
    ...queries.added.map((q) => `  + ${q.bCount}x ${oneLine(q.sql, 180)} (${ms(q.bMs)})`),
    ...queries.removed.map((q) => `  - ${q.aCount}x ${oneLine(q.sql, 180)} (${ms(q.aMs)})`),
    ...queries.changed.map((q) => `  ~ ${q.aCount}x -> ${q.bCount}x ${oneLine(q.sql, 160)}`),
    ...c.logs
      .slice(0, 10)
      .map((l) => `Log ${l.aCount} -> ${l.bCount}: [${l.level}] ${l.channel}: ${oneLine(l.message, 200)}`),
    ...c.headers.map((h) => `Header ${h.name}: ${h.a ?? '(none)'} -> ${h.b ?? '(none)'}`),
    ...c.listeners
      .filter((l) => l.deltaMs === null || Math.abs(l.deltaMs) >= NOTICEABLE_MS)
      .slice(0, 5)
      .map((l) => `Listener ${change(l)}`),
  ];
  return {
    text: withinBudget(lines, TEXT_BUDGET, (left) => `... ${left} more differences: open the comparison page`),
    data: {
      a,
      b,
      durationDeltaMs: c.duration.deltaMs,
      controller: c.controller,
      events: c.events,
      queries: {
        ...queries,
        added: queries.added.slice(0, 20),
        removed: queries.removed.slice(0, 20),
        changed: queries.changed.slice(0, 20),
      },
      logs: c.logs.slice(0, 20),
      headers: c.headers,
      listeners: c.listeners.slice(0, 10),
    },
  };
}
