// bench/run.mjs's one table (target, req/s, p99, CPU µs a request, ratios to bare NestJS) and its verdict lines, as
// text for the console and as Markdown for BENCHMARKS.md.

const fmt = (n, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';

const cells = (r) => [
  fmt(r.rps),
  fmt(r.p99, 2),
  fmt(r.cpu),
  r.cpuRounds.map((x) => fmt(x)).join(', '),
  fmt(r.rpsRatio, 2),
  fmt(r.cpuRatio, 2),
];

const HEADER = ['req/s', 'p99 ms', 'CPU µs/req', 'CPU per round', 'req/s ÷ bare', 'CPU ÷ bare'];

export function consoleTable(rows, verdicts) {
  const header = ['target', ...HEADER];
  const body = rows.map((r) => [r.measure.id, ...cells(r)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...body.map(line),
    '',
    ...verdicts.map((v) => `${v.met ? 'met    ' : 'NOT MET'}  ${v.target}: ${v.figures}`),
  ].join('\n');
}

export function markdownTable(rows) {
  return [
    `| target | ${HEADER.join(' | ')} |`,
    `|---|${HEADER.map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${r.measure.label} (\`${r.measure.id}\`) | ${cells(r).join(' | ')} |`),
  ].join('\n');
}

export function markdownVerdicts(verdicts) {
  return verdicts.map((v) => `- ${v.target}: **${v.met ? 'met' : 'not met'}** (${v.figures})`).join('\n');
}
