import escapeHtml from 'escape-html';

/** One row of the drawn timeline; times in milliseconds since the request entered the kernel. */
export interface TimelineRow {
  name: string;
  /** The CSS class `tl-<category>` colours the bar (and the legend's swatch). */
  category: string;
  start: number;
  duration: number;
  /** Drawn under its parent step (a listener under its event, a query in the controller). */
  nested: boolean;
}

const ROW = 30;
const HEAD = 22;
const AXIS = 22;
/** Where the time axis runs, in percent of the box: the rest keeps the last bar's duration readable. */
const LEFT = 0.5;
const SPAN = 88;

/**
 * A waterfall as wide as its box: bars, ticks and the total line are placed in percent of the width and the labels
 * in pixels, so the text keeps its size at any width (a viewBox would scale it down at 390 px and up at 1440 px).
 * Each row is a label line over its bar; every label is escaped.
 */
export function timelineSvg(rows: TimelineRow[], total: number): string {
  const end = Math.max(total, ...rows.map((r) => r.start + r.duration), 0.001);
  const pct = (t: number) => LEFT + (t / end) * SPAN;
  const height = HEAD + rows.length * ROW + AXIS;
  const drawn = rows.map((row, i) => {
    const y = HEAD + i * ROW;
    const x = pct(row.start);
    const w = Math.max(0.2, pct(row.start + row.duration) - x);
    // A long name keeps its end (the method, the query's table); a gap's label is a sentence, kept whole.
    const label = escapeHtml(row.name.length > 48 && row.category !== 'gap' ? `…${row.name.slice(-47)}` : row.name);
    const ms = `${row.duration.toFixed(2)} ms`;
    // The duration after the bar, before it when the bar ends near the edge, else on the label's line.
    const msText =
      x + w <= 75
        ? `x="${(x + w).toFixed(2)}%" dx="4" y="${y + 25}"`
        : x >= 25
          ? `x="${x.toFixed(2)}%" dx="-4" y="${y + 25}" text-anchor="end"`
          : `x="100%" dx="-4" y="${y + 11}" text-anchor="end"`;
    return (
      `<g class="tl-${escapeHtml(row.category)}"><title>${escapeHtml(row.name)}: ${ms} at ${row.start.toFixed(2)} ms</title>` +
      `<text x="${row.nested ? 18 : 4}" y="${y + 11}">${label}</text>` +
      `<rect x="${x.toFixed(2)}%" y="${y + 15}" width="${w.toFixed(2)}%" height="12"/>` +
      `<text class="tl-ms" ${msText}>${ms}</text></g>`
    );
  });
  const ticks: string[] = [];
  const step = niceStep(end / 5);
  for (let t = 0; t <= end + 1e-9; t += step) {
    const x = `${pct(t).toFixed(2)}%`;
    ticks.push(
      `<line class="tl-grid" x1="${x}" y1="${HEAD - 4}" x2="${x}" y2="${height - AXIS + 4}"/>` +
        `<text class="tl-tick" x="${x}" y="${height - 6}" text-anchor="${t === 0 ? 'start' : 'middle'}">${formatTick(t)}</text>`,
    );
  }
  const totalX = `${pct(total).toFixed(2)}%`;
  return (
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Request timeline: ${rows.length} rows over ${total.toFixed(2)} ms" width="100%" height="${height}">` +
    ticks.join('') +
    `<g class="tl-total"><line x1="${totalX}" y1="4" x2="${totalX}" y2="${height - AXIS + 4}"/>` +
    `<text class="tl-head" x="${totalX}" dx="-4" y="14" text-anchor="end">Total ${total.toFixed(2)} ms</text></g>` +
    drawn.join('') +
    '</svg>'
  );
}

function niceStep(raw: number): number {
  if (raw <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const n = raw / power;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * power;
}

function formatTick(t: number): string {
  return t >= 10 || t === 0 ? `${Math.round(t)} ms` : `${t.toFixed(t < 1 ? 2 : 1)} ms`;
}
