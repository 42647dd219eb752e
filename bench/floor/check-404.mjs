// Checks bench/floor's level-5 debug 404 page (see bench/floor/src/main.ts): starts the server, asks for an unmatched
// URL and checks the page: both exceptions, excerpts whose marked line is the `throw` line of src/main.ts, the logs,
// the plain stack traces, the X-Debug-Token headers; a URL and a Host with `<script>` in them come back escaped; the
// profile is stored with its exception chain. Build first (node node_modules/typescript/bin/tsc -p bench/floor/tsconfig.json).
//
//   node bench/floor/check-404.mjs
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { zstdDecompressSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const TMP = mkdtempSync(join(os.tmpdir(), 'floor-check-'));
const DB = join(TMP, 'profiles.sqlite');
const PORT = 39690;
const SOURCE = readFileSync(join(ROOT, 'bench/floor/src/main.ts'), 'utf8').split('\n');

const child = spawn(process.execPath, ['bench/floor/dist/main.js'], {
  cwd: ROOT,
  env: { ...process.env, FLOOR_LEVEL: '5', FLOOR_DB: DB, PORT: String(PORT), HOST: '127.0.0.1' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${PORT}`;
// A failed check must not leave the server behind (it would answer the next run's requests on the same port).
process.on('exit', () => child.kill('SIGKILL'));
child.once('exit', (code) => {
  if (code !== 0) console.error(`level-5 server exited with ${code}`);
});
for (let i = 0; ; i++) {
  try {
    await (await fetch(`${base}/`)).text();
    break;
  } catch {
    if (i > 100) throw new Error('no server');
    await sleep(100);
  }
}

/** One raw HTTP/1.1 request (fetch would percent-encode `<`), answered with Connection: close. */
function raw(path, host) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(PORT, '127.0.0.1', () =>
      socket.end(
        Buffer.from(
          `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: text/html\r\nConnection: close\r\n\r\n`,
          'latin1',
        ),
      ),
    );
    const chunks = [];
    socket
      .on('data', (c) => chunks.push(c))
      .on('end', () => resolve(Buffer.concat(chunks).toString('latin1')))
      .on('error', reject);
  });
}

const escapeHtml = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const unescape = (s) =>
  s
    .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

for (const round of [1, 2]) {
  // the second page comes from the call path's cached frames
  const res = await fetch(`${base}/bench/no-such-page`, { headers: { accept: 'text/html' } });
  const page = await res.text();
  assert.equal(Number(res.headers.get('content-length')), Buffer.byteLength(page));
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type'), /^text\/html/);
  const token = res.headers.get('x-debug-token');
  assert.match(token, /^[0-9a-f]{6}$/);
  assert.equal(res.headers.get('x-debug-token-link'), `http://127.0.0.1:${PORT}/_profiler/${token}`);
  const message = `No route found for "GET http://127.0.0.1:${PORT}/bench/no-such-page"`;
  assert.ok(page.includes(`<h1>${escapeHtml(message)}</h1>`), 'header message');
  assert.ok(
    page.includes('ResourceNotFoundException</abbr> &rsaquo; <abbr title="NotFoundHttpException">'),
    'class chain',
  );
  assert.ok(page.includes('Exceptions <span class="badge">2</span>'));
  assert.ok(
    page.includes(
      `<span class="label">[2/2]</span><span class="class">NotFoundHttpException</span><p class="message">${escapeHtml(message)}</p>`,
    ),
  );
  assert.ok(
    page.includes(
      '<span class="label">[1/2]</span><span class="class">ResourceNotFoundException</span><p class="message">No routes found for &#34;/bench/no-such-page&#34;.</p>',
    ),
  );
  // Each exception's excerpt: the marked line is a `throw` of main.ts, and its text is that line of the source.
  const excerpts = [
    ...page.matchAll(
      /<div class="excerpt-file">bench\/floor\/src\/main\.ts:(\d+)<\/div>\n  <ol class="excerpt">(.*?)<\/ol>/g,
    ),
  ];
  assert.equal(excerpts.length, 2, 'two exception excerpts');
  const throwLines = [];
  for (const [, line, ol] of excerpts) {
    const current = /<li class="current" data-line="(\d+)"><span class="num">\d+<\/span>(.*?)<\/li>/.exec(ol);
    assert.equal(current[1], line);
    assert.equal(unescape(current[2]), SOURCE[Number(line) - 1]);
    assert.match(SOURCE[Number(line) - 1], /throw new (NotFoundHttpException|ResourceNotFoundException)\(/);
    assert.equal((ol.match(/<li /g) ?? []).length, 11, '11 lines');
    throwLines.push(`${line}: ${SOURCE[Number(line) - 1].trim()}`);
  }
  // Every application frame's excerpt holds its own line, marked.
  const appFrames = [
    ...page.matchAll(
      /<li class="frame app"><details open><summary><span class="fn">([^<]*)<\/span> <span class="loc">bench\/floor\/src\/main\.ts:(\d+):\d+<\/span><\/summary>\n      <ol class="excerpt">(.*?)<\/ol>/g,
    ),
  ];
  for (const [, , line, ol] of appFrames)
    assert.equal(
      unescape(/<li class="current"><span class="num">(\d+)<\/span>(.*?)<\/li>/.exec(ol)[2]),
      SOURCE[Number(line) - 1],
    );
  const vendorFrames = (page.match(/<li class="frame vendor">/g) ?? []).length;
  assert.ok(vendorFrames > 0 && !/class="frame vendor">[^\n]*excerpt/.test(page), 'vendor frames folded, no excerpt');
  // Logs: six notified kernel.request listeners, then the ERROR entry.
  assert.equal((page.match(/<tr class="level-row-debug">/g) ?? []).length, 6);
  assert.ok(page.includes('to listener &#34;RouterListener::onKernelRequest&#34;.'));
  assert.match(
    page,
    /<tr class="level-row-error">.*?Uncaught Exception NotFoundHttpException: &quot;No route found for .*? at bench\/floor\/src\/main\.ts line \d+<pre class="context">/,
  );
  // Stack traces: both, as `at fn (file:line:col)` lines.
  assert.match(
    page,
    /<pre class="stack" id="stack-trace-0">\[2\/2\] NotFoundHttpException: No route found[^\n]*\n    at RouterListener\.onKernelRequest \(bench\/floor\/src\/main\.ts:\d+:\d+\)/,
  );
  assert.match(
    page,
    /<pre class="stack" id="stack-trace-1">\[1\/2\] ResourceNotFoundException: No routes found[^\n]*\n    at UrlMatcher\.match \(bench\/floor\/src\/main\.ts:\d+:\d+\)/,
  );
  if (round === 1)
    console.log(
      `page ${Buffer.byteLength(page)} B, ${appFrames.length} application frames with excerpts, ${vendorFrames} vendor frames; marked lines:\n  ${throwLines.join('\n  ')}`,
    );
}

// Request values are escaped: a path and a Host with markup in them.
const hostile = await raw('/bench/<script>alert(1)</script>?q="x"&y=\'z\'', 'evil<script>host');
assert.match(hostile, /^HTTP\/1\.1 404 /);
const body = hostile.slice(hostile.indexOf('\r\n\r\n') + 4);
assert.ok(!body.includes('<script>alert') && !body.includes('evil<script>'), 'no raw markup from the request');
assert.ok(body.includes('&#60;script&#62;alert(1)&#60;/script&#62;?q=&#34;x&#34;&#38;y=&#39;z&#39;'), 'escaped URL');
assert.ok(body.includes('evil&#60;script&#62;host'), 'escaped Host');
console.log('hostile URL and Host: escaped');
// A byte beyond ASCII in a header (Node reads it as Latin-1; in the URL its parser answers 400 itself) comes back
// as a character reference: the page stays ASCII, so its Content-Length is its length.
const accented = await raw('/bench/caf%C3%A9', 'h\u00f4te');
assert.match(accented, /^HTTP\/1\.1 404 /);
const accentedBody = accented.slice(accented.indexOf('\r\n\r\n') + 4);
assert.ok(
  accentedBody.includes('h&#244;te/bench/caf%C3%A9') && !/[^\x00-\x7f]/.test(accentedBody),
  'non-ASCII escaped',
);
assert.equal(Number(/content-length: (\d+)/i.exec(accented)[1]), Buffer.byteLength(accentedBody));
console.log('non-ASCII URL and Host: escaped, Content-Length right');

// The home page still answers as level 3, and the profiles are stored with the chain.
assert.equal((await fetch(`${base}/`)).status, 200);
await new Promise((resolve) => {
  child.once('exit', resolve);
  child.kill('SIGTERM');
});
const db = new Database(DB, { readonly: true });
const rows = db
  .prepare(
    'SELECT p.token, p.status, p.url, d.data FROM profile p JOIN profile_data d USING (id) WHERE p.status = 404 ORDER BY id',
  )
  .all();
const dictionary = readFileSync(`${DB}.dict`);
const decode = (data) => JSON.parse(zstdDecompressSync(data, { dictionary }).toString());
assert.equal(rows.length, 4); // two pages, the hostile one, the accented one
const profile = decode(rows[0].data);
assert.equal(profile.token, rows[0].token);
assert.deepEqual(
  profile.exception.map((e) => [e.position, e.class]),
  [
    [2, 'NotFoundHttpException'],
    [1, 'ResourceNotFoundException'],
  ],
);
assert.equal(profile.logs.length / 2, 6);
assert.equal(profile.error.context.class, 'NotFoundHttpException');
console.log(
  `stored: ${rows.length} 404 profiles; first: ${profile.exception.map((e) => `${e.class} (${e.frames.length} frames)`).join(', ')}, ${profile.logs.length / 2} notified listeners, error at ${profile.error.context.file}:${profile.error.context.line}; blob ${rows[0].data.length} B (JSON ${JSON.stringify(profile).length} B)`,
);
db.close();
rmSync(TMP, { recursive: true, force: true });
console.log('OK');
