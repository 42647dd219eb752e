import type { HTMLElement } from 'node-html-parser';
import { describeOnEachProfileStore } from '../support/profile-stores.js';
import { rawRequest } from '../support/raw-http.js';
import {
  exceptionEntries,
  heading,
  HOST,
  html,
  logColumns,
  logRows,
  notifications,
  SPEC_APP,
  stackTraceHeads,
  text,
  TOKEN,
} from './spec-pages.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LIST_TIME =
  /^(\d{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d{4}) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;
/** The first six columns, in SPEC.md's order (the app may show more after them). */
const COLUMNS = ['Status', 'IP', 'Method', 'URL', 'Time', 'Token'];

/** A list row's time, read as the server's local time, in milliseconds. */
function listTimeMs(shown: string): number {
  const [, day, month, year, hours, minutes, seconds] = LIST_TIME.exec(shown) ?? [];
  return new Date(+year, MONTHS.indexOf(month), +day, +hours, +minutes, +seconds).getTime();
}

/** Resolves once the wall clock has entered a later second than `ms` (so that the next request is listed later). */
async function nextSecond(ms: number): Promise<void> {
  while (Math.floor(Date.now() / 1000) === Math.floor(ms / 1000))
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
}

// SPEC.md "What the service does" 1, 2, 4, "Profile list row" and the profiler's endpoints.
describeOnEachProfileStore('SPEC.md: the request profiler', SPEC_APP, (current) => {
  const get = (path: string, host = HOST) =>
    current().http().get(path).set('Host', host).set('X-Forwarded-Proto', 'https');
  const search = async (query: string): Promise<HTMLElement> => {
    await current().written();
    return html((await get(`/_profiler/search?${query}`).expect(200)).text);
  };
  const rowsOf = (page: HTMLElement) =>
    page.querySelectorAll('table.results tbody tr').map((tr) => {
      const cells = tr.querySelectorAll('td');
      return Object.fromEntries(COLUMNS.map((name, i) => [name, text(cells[i])])) as Record<string, string>;
    });

  it('What the service does › 1: a development (debug) instance of the shop answers HTTP requests', async () => {
    const res = await get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    // Debug mode: every answer names its profile.
    expect(res.headers['x-debug-token']).toMatch(TOKEN);
    expect(res.headers['x-debug-token-link']).toBe(`https://${HOST}/_profiler/${res.headers['x-debug-token']}`);
  });

  it('What the service does › 2: every handled request is recorded as a profile, identified by a short token, and opens in the profiler panel', async () => {
    const http = current().http();
    const sent = [
      [await get('/').expect(200), 'https://shop.test/', '200'],
      [await get('/this/does/not/exist').expect(404), 'https://shop.test/this/does/not/exist', '404'],
      [
        await http.put('/login').set('Host', HOST).set('X-Forwarded-Proto', 'https').expect(405),
        'https://shop.test/login',
        '405',
      ],
      [await get('/account').expect(302), 'https://shop.test/account', '302'],
      [await get('/_profiler').expect(301), 'https://shop.test/_profiler', '301'],
    ] as const;
    await current().written();
    for (const [res, url, status] of sent) {
      const token: string = res.headers['x-debug-token'];
      expect(token).toMatch(TOKEN);
      const page = html((await get(`/_profiler/${token}`).expect(200)).text);
      expect([text(page.querySelector('.summary .url')), text(page.querySelector('.summary .token'))]).toEqual([
        url,
        token,
      ]);
      expect(text(page.querySelector('.summary .status'))).toBe(status);
    }
    // A request from a host the debug tools do not answer is recorded too (its token is not told to that host).
    const tag = Math.random().toString(16).slice(2, 8);
    const bad = await rawRequest(
      current().port,
      `GET /?${tag} HTTP/1.1\r\nHost: bad host!!\r\nConnection: close\r\n\r\n`,
    );
    expect(bad.status).toBe(400);
    const [row] = rowsOf(await search(`url=${tag}&limit=10`));
    expect([row.Status, row.URL]).toEqual(['400', `http://bad host!!/?${tag}`]);
    await get(`/_profiler/${row.Token}`).expect(200);
  });

  it('What the service does › 4: a profile search page lists recorded profiles as a table and states how many results were found', async () => {
    await get('/?listed').expect(200);
    const page = await search('url=listed&limit=10');
    expect(text(page.querySelector('#results'))).toBe('1 results found');
    expect(rowsOf(page).map((row) => row.URL)).toEqual(['https://shop.test/?listed']);
  });

  describe('Resources › Profile list row (search page)', () => {
    /** Three requests in three successive seconds, each under a host of its own, oldest first. */
    const sent: Array<{ token: string; url: string; status: string; from: number; to: number }> = [];
    let page: HTMLElement;

    beforeAll(async () => {
      const requests: Array<[string, string, number]> = [
        ['list-a.shop.test', '/this/does/not/exist', 404],
        ['list-b.shop.test', '/_profiler', 301],
        ['list-c.shop.test', '/no/such/page', 404],
      ];
      for (const [host, path, status] of requests) {
        if (sent.length > 0) await nextSecond(sent[sent.length - 1].to);
        const from = Date.now();
        const res = await get(path, host).expect(status);
        sent.push({
          token: res.headers['x-debug-token'],
          url: `https://${host}${path}`,
          status: `${status}`,
          from,
          to: Date.now(),
        });
      }
      page = await search('url=list-&limit=10');
    });

    it('Resources › Profile list row › Status: integer HTTP status code (301, 404)', () => {
      expect(rowsOf(page).map((row) => row.Status)).toEqual(['404', '301', '404']);
    });

    it('Resources › Profile list row › IP: IPv4 address of the client', () => {
      expect(rowsOf(page).map((row) => row.IP)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
    });

    it('Resources › Profile list row › Method: HTTP method (GET)', async () => {
      expect(rowsOf(page).map((row) => row.Method)).toEqual(['GET', 'GET', 'GET']);
      await current().http().post('/no/such/form').set('Host', 'list-post.shop.test').expect(404);
      expect(rowsOf(await search('url=list-post&limit=10')).map((row) => row.Method)).toEqual(['POST']);
    });

    it('Resources › Profile list row › URL: absolute URL of the request, scheme https, the host part varying per row', () => {
      expect(rowsOf(page).map((row) => row.URL)).toEqual([
        'https://list-c.shop.test/no/such/page',
        'https://list-b.shop.test/_profiler',
        'https://list-a.shop.test/this/does/not/exist',
      ]);
    });

    it('Resources › Profile list row › Time: DD-Mon-YYYY HH:MM:SS (day, English month abbreviation, year, 24-hour time)', () => {
      const rows = rowsOf(page);
      expect(rows.filter((row) => !LIST_TIME.test(row.Time))).toEqual([]);
      // Each row's time is the second its request was made in.
      for (const [i, request] of [...sent].reverse().entries()) {
        const shown = listTimeMs(rows[i].Time);
        expect(shown).toBeGreaterThanOrEqual(Math.floor(request.from / 1000) * 1000);
        expect(shown).toBeLessThanOrEqual(request.to);
      }
    });

    it('Resources › Profile list row › Token: 6 lowercase hexadecimal characters, identifies the profile, used in /_profiler/<token>', async () => {
      const rows = rowsOf(page);
      expect(rows.map((row) => row.Token)).toEqual([...sent].reverse().map((request) => request.token));
      expect(rows.filter((row) => !TOKEN.test(row.Token))).toEqual([]);
      const links = page.querySelectorAll('table.results tbody tr').map((tr) =>
        tr
          .querySelectorAll('a')
          .map((a) => a.getAttribute('href'))
          .find((href) => href?.startsWith('/_profiler/')),
      );
      expect(links).toEqual(rows.map((row) => `/_profiler/${row.Token}`));
      for (const row of rows) {
        const profile = html((await get(`/_profiler/${row.Token}`).expect(200)).text);
        expect(text(profile.querySelector('.summary .url'))).toBe(row.URL);
      }
    });

    it('Resources › Profile list row › the page header reads Profile Search', () => {
      expect(text(page.querySelector('h1'))).toBe('Profile Search');
    });

    it('Resources › Profile list row › above the table a line states <N> results found, N an integer', async () => {
      const line = page.querySelector('#results')!;
      expect(text(line)).toBe('3 results found');
      const table = page.querySelector('table.results')!;
      expect(page.innerHTML.indexOf(line.outerHTML)).toBeLessThan(page.innerHTML.indexOf(table.outerHTML));
      expect(text((await search('url=no-such-request-anywhere&limit=10')).querySelector('#results'))).toBe(
        '0 results found',
      );
    });

    it('Resources › Profile list row › rows are ordered by Time, newest first', () => {
      const times = rowsOf(page).map((row) => listTimeMs(row.Time));
      // Made in three successive seconds: each row's second is later than the next row's.
      expect(times.every((time, i) => i === 0 || time < times[i - 1])).toBe(true);
      expect(rowsOf(page).map((row) => row.Token)).toEqual([...sent].reverse().map((request) => request.token));
    });
  });

  it('Endpoints › GET /_profiler: status 301 is recorded for this path', async () => {
    const res = await get('/_profiler').expect(301);
    const token: string = res.headers['x-debug-token'];
    await current().written();
    const profile = html((await get(`/_profiler/${token}`).expect(200)).text);
    expect(text(profile.querySelector('.summary .url'))).toBe('https://shop.test/_profiler');
    expect(text(profile.querySelector('.summary .status'))).toBe('301');
    const row = rowsOf(await search(`token=${token}`))[0];
    expect([row.Status, row.Method, row.URL]).toEqual(['301', 'GET', 'https://shop.test/_profiler']);
  });

  it('Endpoints › GET /_profiler/<token> › token: 6 lowercase hexadecimal characters, the token of a recorded profile', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) tokens.push((await get(`/?token-${i}`).expect(200)).headers['x-debug-token']);
    expect(tokens.filter((token) => !TOKEN.test(token))).toEqual([]);
    expect(new Set(tokens).size).toBe(tokens.length);
    await current().written();
    for (const [i, token] of tokens.entries()) {
      const page = html((await get(`/_profiler/${token}`).expect(200)).text);
      expect(text(page.querySelector('.summary .url'))).toBe(`https://shop.test/?token-${i}`);
    }
  });

  it('Endpoints › GET /_profiler/<token> › matched route name _profiler, its route parameters _route, _controller and token', async () => {
    const viewed: string = (await get('/').expect(200)).headers['x-debug-token'];
    await current().written();
    const view = await get(`/_profiler/${viewed}`).expect(200);
    await current().written();
    const rows = logRows(html((await get(`/_profiler/${view.headers['x-debug-token']}?panel=logs`).expect(200)).text));
    const matched = rows.filter((row) => row.message.startsWith('Matched route '));
    expect(matched.map((row) => row.message)).toEqual(['Matched route "_profiler".']);
    const context = matched[0].context as { route: string; route_parameters: Record<string, string> };
    expect(context.route).toBe('_profiler');
    expect(Object.keys(context.route_parameters).sort()).toEqual(['_controller', '_route', 'token']);
    expect(context.route_parameters).toMatchObject({ _route: '_profiler', token: viewed });
  });

  it("Endpoints › GET /_profiler/<token> › the HTML profiler panel for that profile, with the request's exception section, log section and stack traces", async () => {
    const res = await get('/this/does/not/exist').expect(404);
    const token: string = res.headers['x-debug-token'];
    await current().written();
    const panel = await get(`/_profiler/${token}`).expect(200);
    expect(panel.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = html(panel.text);
    expect(heading(page, 'Exceptions')).toBe('Exceptions 2');
    expect(exceptionEntries(page)).toEqual([
      {
        label: '[2/2]',
        class: 'NotFoundHttpException',
        message: 'No route found for "GET https://shop.test/this/does/not/exist"',
      },
      { label: '[1/2]', class: 'ResourceNotFoundException', message: 'No routes found for "/this/does/not/exist/".' },
    ]);
    expect(heading(page, 'Stack Traces')).toBe('Stack Traces 2');
    expect(stackTraceHeads(page)).toEqual([
      '[2/2] NotFoundHttpException: No route found for "GET https://shop.test/this/does/not/exist"',
      '[1/2] ResourceNotFoundException: No routes found for "/this/does/not/exist/".',
    ]);
    // The log section of the same profile: the request's own entries, not the profiler page's.
    const logsLink = page.querySelectorAll('nav a').find((a) => text(a).startsWith('Logs'));
    expect(logsLink?.getAttribute('href')).toBe(`/_profiler/${token}?panel=logs`);
    const logs = html((await get(logsLink!.getAttribute('href')!).expect(200)).text);
    expect(logColumns(logs)).toEqual(['Level', 'Channel', 'Message']);
    const rows = logRows(logs);
    expect(notifications(rows)).toContainEqual(['kernel.request', 'RouterListener::onKernelRequest']);
    expect(rows.filter((row) => row.level === 'ERROR').map((row) => row.message)).toEqual([
      expect.stringMatching(
        /^Uncaught Exception NotFoundHttpException: "No route found for "GET https:\/\/shop\.test\/this\/does\/not\/exist"" at /,
      ),
    ]);
    expect(rows.some((row) => row.message.startsWith('Matched route '))).toBe(false);
  });

  it('Endpoints › Profile search page: HTML page Profile Search with the result count and the table of profile rows', async () => {
    await get('/?search-page').expect(200);
    await current().written();
    const res = await get('/_profiler/search?url=search-page&limit=10').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = html(res.text);
    expect(text(page.querySelector('h1'))).toBe('Profile Search');
    expect(text(page.querySelector('#results'))).toBe('1 results found');
    expect(page.querySelectorAll('table.results thead th').map(text).slice(0, COLUMNS.length)).toEqual(COLUMNS);
    expect(rowsOf(page)).toEqual([
      expect.objectContaining({ Status: '200', Method: 'GET', URL: 'https://shop.test/?search-page' }),
    ]);
  });
});
