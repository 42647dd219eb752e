import type { HTMLElement } from 'node-html-parser';
import { describeOnEachProfileStore } from '../support/profile-stores.js';
import {
  eventOrder,
  HOST,
  html,
  logColumns,
  logRows,
  notifications,
  SPEC_APP,
  text,
  TOKEN,
  type LogRow,
} from './spec-pages.js';

/**
 * SPEC.md's Events table: each event in its order, with the duties "seen in the log" and the listeners of this app
 * that perform them. Duties no listener of its own performs here are named below.
 */
const EVENTS: Array<[event: string, duties: Array<[duty: string, listeners: string[]]>]> = [
  [
    'kernel.request',
    [
      ['debug setup', ['DebugHandlersListener::configure']],
      ['request validation', ['ValidateRequestListener::onKernelRequest']],
      ['cross-origin handling', ['CorsListener::onKernelRequest']],
      ['session start', ['SessionListener::onKernelRequest']],
      // Symfony's LocaleListener sets the default before routing and the route's `_locale` after it.
      ['locale setting', ['LocaleListener::setDefaultLocale', 'LocaleListener::onKernelRequest']],
      ['route matching', ['RouterListener::onKernelRequest']],
      ['security firewall', ['FirewallListener::onKernelRequest']],
      ['pagination', ['PaginationListener::onKernelRequest']],
      ['maintenance-mode check', ['MaintenanceListener::onKernelRequest']],
    ],
  ],
  [
    'kernel.controller',
    [
      ['controller annotations', ['CsrfListener::onKernelController']],
      ['parameter conversion', ['ParamConverterListener::onKernelController']],
      ['HTTP caching', ['HttpCacheListener::onKernelController']],
    ],
  ],
  ['kernel.controller_arguments', [['security and access-grant checks', ['AccessListener::onControllerArguments']]]],
  [
    'kernel.response',
    [
      ['security context save', ['ContextListener::onKernelResponse']],
      ['cross-origin headers', ['CorsListener::onKernelResponse']],
      ['response preparation', ['ResponseListener::onKernelResponse']],
      ['data collection', ['ProfilerListener::onKernelResponse']],
      ['remember-me cookie', ['RememberMeListener::onKernelResponse']],
      ['HTTP caching', ['HttpCacheListener::onKernelResponse']],
      ['cache variation', ['HttpCacheListener::onKernelResponse']],
      ['profiler storage', ['ProfilerListener::onKernelResponse']],
      ['removal of content-security-policy header for error pages', ['ErrorListener::removeCspHeader']],
      ['debug toolbar injection', ['WebDebugToolbarListener::onKernelResponse']],
      ['robots-indexing disallow header', ['DisallowRobotsIndexingListener::onResponse']],
      ['session save', ['SessionListener::onKernelResponse']],
    ],
  ],
  [
    'kernel.finish_request',
    [
      ['locale restore', ['LocaleListener::onKernelFinishRequest']],
      ['router restore', ['RouterListener::onKernelFinishRequest']],
      ['session finish', ['SessionListener::onFinishRequest']],
    ],
  ],
];

/*
 * Duties of the table no listener of this app performs, so no log entry can show them (see test/spec/README.md):
 * kernel.controller data collection (the profiler interceptor) and template selection (@Render);
 * kernel.controller_arguments error handling; kernel.response link headers and streamed responses (the HTTP
 * adapter); kernel.finish_request asset reset and firewall finish.
 */

// SPEC.md "Log entry", "Events" and "Authentication".
describeOnEachProfileStore('SPEC.md: logs and events', SPEC_APP, (current) => {
  const get = (path: string) => current().http().get(path).set('Host', HOST).set('X-Forwarded-Proto', 'https');
  const logsOf = async (token: string) => html((await get(`/_profiler/${token}?panel=logs`).expect(200)).text);
  /** Pages read once per store: a shop page, a 404, the profile page of the shop page, a login redirect. */
  let home: { token: string; logs: LogRow[]; events: HTMLElement };
  let missing: { page: LogRow[]; logs: LogRow[] };
  /** The debug error page of a 405 (a route matches the path, not the method). */
  let notAllowed: LogRow[];
  let viewed: { token: string; of: string; logs: LogRow[] };
  let account: { status: number; location: string; robots: string; token: string; logs: LogRow[] };

  beforeAll(async () => {
    const shop = await get('/').expect(200);
    const notFound = await get('/this/does/not/exist').expect(404);
    const login = await get('/account').expect(302);
    notAllowed = logRows(
      html((await current().http().put('/login').set('Host', HOST).set('Accept', 'text/html').expect(405)).text),
    );
    await current().written();
    const view = await get(`/_profiler/${shop.headers['x-debug-token']}`).expect(200);
    await current().written();
    home = {
      token: shop.headers['x-debug-token'],
      logs: logRows(await logsOf(shop.headers['x-debug-token'])),
      events: html((await get(`/_profiler/${shop.headers['x-debug-token']}?panel=events`).expect(200)).text),
    };
    missing = { page: logRows(html(notFound.text)), logs: logRows(await logsOf(notFound.headers['x-debug-token'])) };
    viewed = {
      token: view.headers['x-debug-token'],
      of: shop.headers['x-debug-token'],
      logs: logRows(await logsOf(view.headers['x-debug-token'])),
    };
    account = {
      status: login.status,
      location: login.headers.location,
      robots: login.headers['x-robots-tag'],
      token: login.headers['x-debug-token'],
      logs: logRows(await logsOf(login.headers['x-debug-token'])),
    };
  });

  const matchedRoute = (rows: LogRow[]) => rows.filter((row) => row.message.startsWith('Matched route '));
  const notifiedRows = (rows: LogRow[]) => rows.filter((row) => row.message.startsWith('Notified event '));

  it('Resources › Log entry › the Logs table has the columns Level, Channel, Message', async () => {
    expect(logColumns(await logsOf(home.token))).toEqual(['Level', 'Channel', 'Message']);
    expect(logColumns(html((await get('/this/does/not/exist').expect(404)).text))).toEqual([
      'Level',
      'Channel',
      'Message',
    ]);
  });

  it('Resources › Log entry › Level: INFO (Matched route) and DEBUG (event notifications)', () => {
    expect(matchedRoute(viewed.logs).map((row) => row.level)).toEqual(['INFO']);
    expect(new Set(notifiedRows(viewed.logs).map((row) => row.level))).toEqual(new Set(['DEBUG']));
    expect(new Set(notifiedRows(missing.page).map((row) => row.level))).toEqual(new Set(['DEBUG']));
  });

  it('Resources › Log entry › time: HH:MM:SS, the time of day', () => {
    const timeOfDay = /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;
    expect(missing.page.filter((row) => !timeOfDay.test(row.time))).toEqual([]);
    // The Logs panel may add the milliseconds, as Symfony's does (H:i:s.v).
    expect(viewed.logs.filter((row) => !timeOfDay.test(row.time.replace(/\.\d{3}$/, '')))).toEqual([]);
  });

  it('Resources › Log entry › Channel: request (Matched route) and event (event notifications)', () => {
    expect(matchedRoute(viewed.logs).map((row) => row.channel)).toEqual(['request']);
    expect(new Set(notifiedRows(viewed.logs).map((row) => row.channel))).toEqual(new Set(['event']));
    expect(new Set(notifiedRows(missing.page).map((row) => row.channel))).toEqual(new Set(['event']));
  });

  it('Resources › Log entry › Message: a string, placeholders filled in', () => {
    for (const rows of [viewed.logs, missing.page, missing.logs]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((row) => row.message === '' || /\{[a-z_]+\}/.test(row.message))).toEqual([]);
    }
  });

  /** Entries whose context is not a JSON object shown below their message. */
  const withoutContext = (rows: LogRow[]) =>
    rows.filter((row) => typeof row.context !== 'object' || row.context === null || Array.isArray(row.context));

  it('Resources › Log entry › context: JSON object shown below the message (debug error pages of a 404 and a 405)', () => {
    for (const rows of [missing.page, notAllowed]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(withoutContext(rows).map((row) => row.message)).toEqual([]);
    }
  });

  it('Resources › Log entry › context: JSON object shown below the message (Logs panel)', () => {
    for (const rows of [viewed.logs, missing.logs]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(withoutContext(rows).map((row) => row.message)).toEqual([]);
    }
  });

  it('Resources › Log entry › context of INFO `Matched route "<route_name>".` (channel request): route, route_parameters (_route, _controller, token), request_uri (absolute URL), method', () => {
    const [matched] = matchedRoute(viewed.logs);
    expect(matched).toMatchObject({ level: 'INFO', channel: 'request', message: 'Matched route "_profiler".' });
    const context = matched.context as Record<string, unknown>;
    expect(Object.keys(context)).toEqual(['route', 'route_parameters', 'request_uri', 'method']);
    expect(context).toEqual({
      route: '_profiler',
      route_parameters: { _route: '_profiler', _controller: expect.any(String), token: viewed.of },
      request_uri: `https://${HOST}/_profiler/${viewed.of}`,
      method: 'GET',
    });
    expect((context.route_parameters as { _controller: string })._controller).not.toBe('');
  });

  /** Every event notification of a Logs table: DEBUG, channel event, the message's shape, its context. */
  const expectNotifications = (rows: LogRow[]) => {
    const notified = notifiedRows(rows);
    expect(notified.length).toBeGreaterThan(0);
    for (const row of notified) {
      const [, event, listener] = /^Notified event "([^"]+)" to listener "([^"]+)"\.$/.exec(row.message) ?? [];
      expect({ level: row.level, channel: row.channel, context: row.context }).toEqual({
        level: 'DEBUG',
        channel: 'event',
        context: { event, listener },
      });
    }
  };

  it('Events › each listener notified is a DEBUG entry in channel event: Notified event "<event_name>" to listener "<listener_identifier>". with the context {event, listener} (Logs panel)', () => {
    expectNotifications(home.logs);
    expectNotifications(missing.logs);
  });

  it('Events › each listener notified is a DEBUG entry in channel event: Notified event "<event_name>" to listener "<listener_identifier>". with the context {event, listener} (debug error pages of a 404 and a 405)', () => {
    expect(notifications(missing.page)).toContainEqual(['kernel.request', 'RouterListener::onKernelRequest']);
    expectNotifications(missing.page);
    expectNotifications(notAllowed);
  });

  it('Events › one entry is written per listener notified (the Events panel lists the same calls)', () => {
    const called: Array<[string, string]> = [];
    let event = '';
    for (const el of home.events.querySelectorAll('h3, table.events.called tbody tr')) {
      if (el.tagName === 'H3') event = text(el);
      else called.push([event, text(el.querySelectorAll('td')[1])]);
    }
    expect(called.length).toBeGreaterThan(20);
    expect(notifications(home.logs)).toEqual(called);
  });

  for (const [index, [event, duties]] of EVENTS.entries())
    it(`Events › table row ${index + 1}: ${event} is notified ${['1st', '2nd', '3rd', '4th', '5th'][index]}, to the listeners for ${duties.map(([duty]) => duty).join(', ')}`, () => {
      expect(eventOrder(home.logs).indexOf(event)).toBe(index);
      const listeners = notifications(home.logs)
        .filter(([notified]) => notified === event)
        .map(([, listener]) => listener);
      const missingDuties = duties.filter(([, needed]) => !needed.every((l) => listeners.includes(l)));
      expect(missingDuties.map(([duty]) => duty)).toEqual([]);
    });

  it('Events › the five events in the order of the table: kernel.request, kernel.controller, kernel.controller_arguments, kernel.response, kernel.finish_request', () => {
    expect(eventOrder(home.logs)).toEqual(EVENTS.map(([event]) => event));
    expect(eventOrder(viewed.logs)).toEqual(EVENTS.map(([event]) => event));
  });

  it('Events › rule 1: kernel.request listeners run in the order of the table; route matching happens within this event', () => {
    const [, duties] = EVENTS[0];
    const dutyOf = (listener: string) => duties.find(([, listeners]) => listeners.includes(listener))?.[0];
    const listeners = notifications(home.logs)
      .filter(([event]) => event === 'kernel.request')
      .map(([, listener]) => listener);
    // Every kernel.request listener has its row; each duty first appears where the table puts it.
    expect(listeners.filter((listener) => !dutyOf(listener))).toEqual([]);
    expect([...new Set(listeners.map(dutyOf))]).toEqual(duties.map(([duty]) => duty));
    // The route was matched (logged by the router's listener) before any later event was notified.
    const rows = home.logs;
    const matched = rows.findIndex((row) => row.message === 'Matched route "shop_home".');
    const firstLater = rows.findIndex((row) => /^Notified event "kernel\.(?!request")/.test(row.message));
    expect(matched).toBeGreaterThanOrEqual(0);
    expect(matched).toBeLessThan(firstLater);
  });

  it('Events › rule 2: when route matching finds no route, the not-found exception is raised during kernel.request', () => {
    const rows = missing.logs;
    const error = rows.findIndex((row) => row.level === 'ERROR');
    expect(rows[error].message).toMatch(/^Uncaught Exception NotFoundHttpException: "No route found for "GET /);
    const before = notifications(rows.slice(0, error));
    // kernel.request was notified up to the router's listener, and no later listener or event came before it.
    expect(new Set(before.map(([event]) => event))).toEqual(new Set(['kernel.request']));
    expect(before.at(-1)).toEqual(['kernel.request', 'RouterListener::onKernelRequest']);
    expect(eventOrder(rows)).not.toContain('kernel.controller');
    expect(eventOrder(rows)).not.toContain('kernel.controller_arguments');
  });

  it('Events › rule 3: a matched route is logged at INFO, channel request, Matched route "<route_name>".', () => {
    for (const [rows, route] of [
      [home.logs, 'shop_home'],
      [viewed.logs, '_profiler'],
      [account.logs, 'account_overview'],
    ] as const) {
      expect(matchedRoute(rows).map((row) => [row.level, row.channel, row.message])).toEqual([
        ['INFO', 'request', `Matched route "${route}".`],
      ]);
    }
  });

  it('Events › rule 4: a response set by a kernel.request listener is used directly and passes the response filtering step (kernel.response)', () => {
    // The firewall (kernel.request) answers an anonymous visitor of /account with the login redirect.
    expect({ status: account.status, location: account.location }).toEqual({ status: 302, location: '/login' });
    const notified = notifications(account.logs);
    expect(notified.filter(([event]) => event === 'kernel.request').at(-1)).toEqual([
      'kernel.request',
      'FirewallListener::onKernelRequest',
    ]);
    expect(eventOrder(account.logs)).toEqual(['kernel.request', 'kernel.response', 'kernel.finish_request']);
    expect(notified.filter(([event]) => event === 'kernel.response').map(([, listener]) => listener)).toEqual(
      notifications(home.logs)
        .filter(([event]) => event === 'kernel.response')
        .map(([, listener]) => listener),
    );
    // What the response filtering added: the profile's token (profiler) and the robots header (debug mode).
    expect(account.token).toMatch(TOKEN);
    expect(account.robots).toBe('noindex');
  });

  it('Authentication › the request lifecycle includes a security firewall step and a session step', () => {
    const listeners = notifications(home.logs).map(([event, listener]) => `${event} ${listener}`);
    expect(listeners).toEqual(
      expect.arrayContaining([
        'kernel.request SessionListener::onKernelRequest',
        'kernel.request FirewallListener::onKernelRequest',
      ]),
    );
  });
});
