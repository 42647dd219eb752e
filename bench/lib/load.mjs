// One bounded autocannon run against a loopback URL: requests, seconds, req/s, latency p50/p90/p99 (ms), status
// counts, errors. The bench calls load() in its own process, which it pins to another core than the servers'; as a
// command it prints the result as one JSON line:
//
//   node bench/lib/load.mjs '{"url":"http://127.0.0.1:3000/","connections":10,"duration":5,"headers":{}}'
//   ("amount": N instead of "duration": stop after N requests; "requests": [{ "path": "/a" }, …] cycles paths)
import autocannon from 'autocannon';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export async function load(spec) {
  const url = new URL(spec.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    throw new Error(`load.mjs only loads the loopback interface, not ${url.hostname}`);

  const options = {
    url: spec.url,
    connections: spec.connections ?? 10,
    pipelining: 1,
    headers: spec.headers ?? {},
    timeout: 30,
    ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration ?? 5 }),
    ...(spec.requests ? { requests: spec.requests } : {}),
  };

  // autocannon's own histogram keeps whole milliseconds and only 2xx answers: record every response's time here.
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const started = performance.now();
  const instance = autocannon(options);
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const sorted = latencies.subarray(0, count).sort();
  const percentile = (p) => (count === 0 ? 0 : sorted[Math.min(count - 1, Math.ceil((p / 100) * count) - 1)]);
  const statuses = {};
  for (const [key, value] of Object.entries(result.statusCodeStats ?? {})) statuses[key] = value.count;
  const requests = result.requests.total;
  return {
    requests,
    seconds,
    rps: requests / seconds,
    p50: percentile(50),
    p90: percentile(90),
    p99: percentile(99),
    max: count === 0 ? 0 : sorted[count - 1],
    bytesPerRequest: requests > 0 ? result.throughput.total / requests : 0,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await load(JSON.parse(process.argv[2])))}\n`);
}
