// What bench/run.mjs measures in its rounds (each a server and a request) and issue 45's targets, judged from one
// run's medians as ratios of CPU µs a request, so that they hold on any machine.

export const NOT_FOUND_PATH = '/bench/no-such-page';

/**
 * The measured targets, in a round's order (reversed every other round). `server`: a key of bench/run.mjs's servers;
 * `ref`: the bare NestJS target its ratios are taken against; `fullOnly`: skipped by the quick mode.
 */
export const MEASURES = [
  { id: 'baseline', label: 'bare NestJS, `/`', server: 'baseline', path: '/', status: 200, ref: 'baseline' },
  {
    id: 'baseline-otel',
    label: 'bare NestJS + OpenTelemetry, `/`',
    server: 'baselineOtel',
    path: '/',
    status: 200,
    ref: 'baseline',
  },
  { id: 'floor-0', label: 'bench/floor level 0, `/`', server: 'floor0', path: '/', status: 200, ref: 'baseline' },
  {
    id: 'floor-3',
    label: 'bench/floor level 3 (every profile stored), `/`',
    server: 'floor3',
    path: '/',
    status: 200,
    ref: 'baseline',
  },
  { id: 'static-off', label: 'Shopkernel `/`, profiler off', server: 'off', path: '/', status: 200, ref: 'baseline' },
  {
    id: 'app-otel',
    label: 'Shopkernel `/`, traced by OpenTelemetry (profiler off)',
    server: 'appOtel',
    path: '/',
    status: 200,
    ref: 'baseline',
  },
  {
    id: 'static-profiled',
    label: 'Shopkernel `/`, profiler on',
    server: 'profiled',
    path: '/',
    status: 200,
    ref: 'baseline',
  },
  {
    id: 'catalogue-off',
    label: 'Shopkernel `/products?page=2`, profiler off',
    server: 'off',
    path: '/products?page=2',
    status: 200,
    ref: 'baseline',
  },
  {
    id: 'catalogue',
    label: 'Shopkernel `/products?page=2`, profiler on',
    server: 'profiled',
    path: '/products?page=2',
    status: 200,
    ref: 'baseline',
  },
  {
    id: 'profiler-search',
    label: 'Profile search `/_profiler/search?limit=10`',
    server: 'profiled',
    path: '/_profiler/search?limit=10',
    status: 200,
    ref: 'baseline',
  },
  {
    id: 'profiler-panel',
    label: 'Profile panel `/_profiler/<token>?panel=request`',
    server: 'profiled',
    path: (ctx) => `/_profiler/${ctx.token}?panel=request`,
    status: 200,
    ref: 'baseline',
  },
  {
    id: 'baseline-404',
    label: "Nest's 404 (bare NestJS)",
    server: 'baseline',
    path: NOT_FOUND_PATH,
    status: 404,
    ref: 'baseline-404',
  },
  {
    id: 'floor-5',
    label: 'bench/floor level 5 (debug 404 page, profile stored)',
    server: 'floor5',
    path: NOT_FOUND_PATH,
    status: 404,
    ref: 'baseline-404',
  },
  {
    id: 'debug-404',
    label: 'Shopkernel debug 404 page, profiler on',
    server: 'profiled',
    path: NOT_FOUND_PATH,
    status: 404,
    ref: 'baseline-404',
  },
];

const MB = 2 ** 20;
const f = (n, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';

/**
 * Issue 45's targets, each `{ target, met, figures }`: `rows` maps a measure's id to its medians (`rps`, `p99`,
 * `cpu` in µs a request); `mem` is the memory probe's result (or null). A figure not measured is a target not met.
 */
export function verdicts(rows, mem) {
  const cpu = (id) => rows[id]?.cpu ?? NaN;
  const out = [];
  const judge = (target, met, figures) => out.push({ target, met: Boolean(met), figures });

  const [profiled, otel] = [rows['static-profiled'], rows['app-otel']];
  const rpsRatio = (profiled?.rps ?? NaN) / (otel?.rps ?? NaN);
  judge(
    'profiled `/` req/s ≥ 1.5 × app-otel req/s',
    rpsRatio >= 1.5,
    `${f(profiled?.rps)} ÷ ${f(otel?.rps)} req/s = ${f(rpsRatio, 2)}×`,
  );
  const cpuRatio = cpu('app-otel') / cpu('static-profiled');
  judge(
    'app-otel CPU a request ≥ 1.5 × profiled `/` CPU a request',
    cpuRatio >= 1.5,
    `${f(cpu('app-otel'))} ÷ ${f(cpu('static-profiled'))} µs = ${f(cpuRatio, 2)}×`,
  );
  judge(
    'profiled `/` p99 ≤ app-otel p99',
    profiled?.p99 <= otel?.p99,
    `${f(profiled?.p99, 2)} ms against ${f(otel?.p99, 2)} ms`,
  );

  const added = cpu('static-profiled') - cpu('static-off');
  const floorAdded = cpu('floor-3') - cpu('floor-0');
  judge(
    "profiler's added CPU on `/` (profiled − off) ≤ 1.5 × the floor's (level 3 − level 0)",
    added <= 1.5 * floorAdded,
    `${f(added)} µs against ${f(floorAdded)} µs: ${f(added / floorAdded, 2)}×`,
  );
  judge(
    "debug 404 page CPU ≤ 1.5 × the floor's level 5",
    cpu('debug-404') <= 1.5 * cpu('floor-5'),
    `${f(cpu('debug-404'))} µs against ${f(cpu('floor-5'))} µs: ${f(cpu('debug-404') / cpu('floor-5'), 2)}×`,
  );
  judge(
    '`/products?page=2` profiled CPU ≤ 1.4 × profiler off',
    cpu('catalogue') <= 1.4 * cpu('catalogue-off'),
    `${f(cpu('catalogue'))} µs against ${f(cpu('catalogue-off'))} µs: ${f(cpu('catalogue') / cpu('catalogue-off'), 2)}×`,
  );

  if (mem) {
    const settled = mem.last.settled.rss;
    judge('RSS settles at ≤ 250 MB under load', settled <= 250 * MB, `${f(settled / MB, 1)} MB settled`);
    const partial =
      mem.last.requests < 100_000 ? `; only ${f(mem.last.requests)} requests: the full mode runs 100,000` : '';
    judge(
      `RSS grows ≤ 10 MB from the 10,000th request to the 100,000th`,
      mem.rssGrowth <= 10 * MB && mem.last.requests >= 100_000,
      `${mem.rssGrowth >= 0 ? '+' : '−'}${f(Math.abs(mem.rssGrowth) / MB, 1)} MB from request ${f(mem.from.requests)} to ${f(mem.last.requests)}${partial}`,
    );
  }
  return out;
}
