import { interpolate } from '../../../lifecycle/logging/log-entry.js';
import type { ProfileKind, ProfileRecord } from '../profile-record.js';

/**
 * Synthetic but realistic profiles, shaped as the collectors store them (request, response, exception, logs,
 * events, routing, performance, memory, templates, config; listener calls compact, see EventsCollector), with varied methods, statuses, client IPs and URLs.
 * About a fifth are the profiler's own pages and a fifth static assets (their kinds), the rest the application's.
 * Deterministic: the same index gives the same profile. Used by the storage specs and by bench/store-scale.mjs.
 */
export interface SampleProfileOptions {
  /** The profile's time, milliseconds since the epoch (default: a fixed day plus `index` seconds). */
  time?: number;
  /** Default: the index as 6 hexadecimal digits. */
  token?: string;
  parent?: string | null;
  /** The token of the redirect this request followed (default: none). */
  redirectedFrom?: string | null;
  /** With the text its collectors' searchText() would give (ProfileRecord.text), for full-text search. */
  withText?: boolean;
}

const MB = 1024 * 1024;
const BASE_TIME = Date.UTC(2026, 0, 5, 9, 0, 0);

const HOSTS = [
  'http://localhost:3000',
  'http://localhost:3000',
  'http://localhost:3000',
  'https://shop.test',
  'http://127.0.0.1:3000',
];
const CATEGORIES = [
  'shoes',
  'jackets',
  'hats',
  'bags',
  'scarves',
  'watches',
  'sunglasses',
  'socks',
  'gloves',
  'belts',
  'shirts',
  'trousers',
];
const ADJECTIVES = [
  'red',
  'blue',
  'green',
  'black',
  'white',
  'wool',
  'leather',
  'silk',
  'denim',
  'linen',
  'vintage',
  'classic',
  'running',
  'winter',
  'summer',
  'slim',
];
const SEARCHES = [
  'boots',
  'red scarf',
  'gift',
  'sale',
  'wool',
  'leather belt',
  'caf%C3%A9',
  'size 42',
  'waterproof',
  'kids',
];
const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'curl/8.5.0',
];
const MODULES = [
  'AppModule',
  'CatalogueModule',
  'CartModule',
  'ConfigModule',
  'DatabaseModule',
  'EventEmitterModule',
  'LifecycleModule',
  'OrdersModule',
  'AccountsModule',
  'ProfilerModule',
];

interface Route {
  method: string;
  path: (r: Random) => string;
  query?: (r: Random) => Record<string, string> | null;
  name: string;
  routePath: string;
  controller: string;
  template: string | null;
  status: (r: Random) => number;
  weight: number;
  /** A static file (an image, a font, a stylesheet or a script: the kind 'asset'). */
  asset?: boolean;
}

const slug = (r: Random) => `${r.pick(ADJECTIVES)}-${r.pick(CATEGORIES).replace(/s$/, '')}-${r.int(1, 400)}`;

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: () => '/',
    name: 'shop_home',
    routePath: '/',
    controller: 'HomeController::index',
    template: 'shop/home',
    status: (r) => (r.chance(0.995) ? 200 : 500),
    weight: 14,
  },
  {
    method: 'GET',
    path: (r) => `/catalogue/${r.pick(CATEGORIES)}`,
    query: (r) => (r.chance(0.4) ? { page: String(r.int(2, 9)), sort: r.pick(['price', '-price', 'new']) } : null),
    name: 'catalogue_category',
    routePath: '/catalogue/:category',
    controller: 'CatalogueController::category',
    template: 'shop/catalogue/category',
    status: (r) => (r.chance(0.97) ? 200 : 404),
    weight: 20,
  },
  {
    method: 'GET',
    path: (r) => `/product/${slug(r)}`,
    name: 'catalogue_product',
    routePath: '/product/:slug',
    controller: 'CatalogueController::product',
    template: 'shop/catalogue/product',
    status: (r) => (r.chance(0.93) ? 200 : r.chance(0.9) ? 404 : 500),
    weight: 26,
  },
  {
    method: 'GET',
    path: () => '/search',
    query: (r) => ({ q: r.pick(SEARCHES) }),
    name: 'catalogue_search',
    routePath: '/search',
    controller: 'CatalogueController::search',
    template: 'shop/catalogue/search',
    status: () => 200,
    weight: 6,
  },
  {
    method: 'GET',
    path: () => '/cart',
    name: 'cart_show',
    routePath: '/cart',
    controller: 'CartController::show',
    template: 'shop/cart/show',
    status: () => 200,
    weight: 8,
  },
  {
    method: 'POST',
    path: () => '/cart/items',
    name: 'cart_add',
    routePath: '/cart/items',
    controller: 'CartController::add',
    template: null,
    status: (r) => (r.chance(0.9) ? 303 : r.chance(0.8) ? 422 : 409),
    weight: 7,
  },
  {
    method: 'DELETE',
    path: (r) => `/cart/items/${r.int(1, 5000)}`,
    name: 'cart_remove',
    routePath: '/cart/items/:id',
    controller: 'CartController::remove',
    template: null,
    status: (r) => (r.chance(0.95) ? 204 : 404),
    weight: 1,
  },
  {
    method: 'GET',
    path: () => '/checkout',
    name: 'orders_checkout',
    routePath: '/checkout',
    controller: 'OrdersController::checkout',
    template: 'shop/orders/checkout',
    status: (r) => (r.chance(0.8) ? 200 : 302),
    weight: 4,
  },
  {
    method: 'POST',
    path: () => '/checkout',
    name: 'orders_place',
    routePath: '/checkout',
    controller: 'OrdersController::place',
    template: null,
    status: (r) => (r.chance(0.85) ? 303 : r.chance(0.7) ? 422 : 500),
    weight: 2,
  },
  {
    method: 'GET',
    path: (r) => `/account/orders/${r.int(1000, 99999)}`,
    name: 'accounts_order',
    routePath: '/account/orders/:id',
    controller: 'AccountsController::order',
    template: 'shop/accounts/order',
    status: (r) => (r.chance(0.9) ? 200 : r.chance(0.5) ? 403 : 404),
    weight: 3,
  },
  {
    method: 'POST',
    path: () => '/login',
    name: 'accounts_login',
    routePath: '/login',
    controller: 'AccountsController::login',
    template: null,
    status: (r) => (r.chance(0.7) ? 302 : 401),
    weight: 2,
  },
  {
    method: 'GET',
    path: (r) => `/api/products/${r.int(1, 5000)}`,
    name: 'api_product',
    routePath: '/api/products/:id',
    controller: 'ProductsApiController::show',
    template: null,
    status: (r) => (r.chance(0.96) ? 200 : 404),
    weight: 4,
  },
  {
    method: 'PUT',
    path: (r) => `/api/cart/items/${r.int(1, 5000)}`,
    name: 'api_cart_update',
    routePath: '/api/cart/items/:id',
    controller: 'CartApiController::update',
    template: null,
    status: (r) => (r.chance(0.9) ? 200 : 400),
    weight: 1,
  },
  {
    method: 'PATCH',
    path: (r) => `/api/account/${r.int(1, 900)}`,
    name: 'api_account_update',
    routePath: '/api/account/:id',
    controller: 'AccountsApiController::update',
    template: null,
    status: (r) => (r.chance(0.9) ? 200 : 400),
    weight: 1,
  },
  {
    method: 'GET',
    path: (r) =>
      r.pick(['/wp-login.php', '/.env', '/favicon.ico', '/robots.txt', '/admin', `/old-page-${r.int(1, 99)}`]),
    name: '',
    routePath: '',
    controller: '',
    template: null,
    status: (r) => (r.chance(0.1) ? 405 : 404),
    weight: 3,
  },
  {
    method: 'OPTIONS',
    path: (r) => `/api/products/${r.int(1, 5000)}`,
    name: '',
    routePath: '',
    controller: '',
    template: null,
    status: () => 204,
    weight: 1,
  },
  {
    method: 'HEAD',
    path: () => '/',
    name: 'shop_home',
    routePath: '/',
    controller: 'HomeController::index',
    template: null,
    status: () => 200,
    weight: 1,
  },
];
const TOTAL_WEIGHT = ROUTES.reduce((sum, route) => sum + route.weight, 0);
/** The profiler's pages and the static assets: the profiles of kinds 'profiler' and 'asset' (their weight unused). */
const PROFILER_ROUTE: Route = {
  method: 'GET',
  path: (r) =>
    r.pick(['/_profiler/', '/_profiler/search', `/_profiler/${r.int(0, 0xffffff).toString(16).padStart(6, '0')}`]),
  name: 'profiler_profile',
  routePath: '/_profiler/:token',
  controller: 'ProfilerController::profile',
  template: 'profiler/profile',
  status: () => 200,
  weight: 0,
};
const ASSETS = ['/css/shop.css', '/js/cart.js', '/images/logo.svg', '/fonts/inter.woff2', '/favicon.png'];
const ASSET_TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  woff2: 'font/woff2',
  png: 'image/png',
  jpg: 'image/jpeg',
};
const ASSET_ROUTE: Route = {
  method: 'GET',
  path: (r) => (r.chance(0.5) ? r.pick(ASSETS) : `/images/products/${r.int(1, 400)}.jpg`),
  name: 'shop_asset',
  routePath: '/:file*',
  controller: 'AssetsController::file',
  template: null,
  status: (r) => (r.chance(0.8) ? 200 : 304),
  weight: 0,
  asset: true,
};

/**
 * The kind of the profile of this index: a hash of the index, not the profile's generator, so that the application's
 * profiles are what they were before kinds.
 */
function kindOf(index: number): ProfileKind {
  const roll = (Math.imul(index ^ 0x5bd1e995, 0x27d4eb2d) >>> 0) % 5;
  return roll === 0 ? 'profiler' : roll === 1 ? 'asset' : 'application';
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
};

const REQUEST_LISTENERS: [string, number][] = [
  ['DebugHandlersListener::configure', 2048],
  ['ValidateRequestListener::onKernelRequest', 256],
  ['CorsListener::onKernelRequest', 250],
  ['LocaleListener::setDefaultLocale', 100],
  ['RouterListener::onKernelRequest', 32],
  ['LocaleListener::onKernelRequest', 16],
  ['MaintenanceListener::onKernelRequest', -16],
];
const RESPONSE_LISTENERS: [string, number][] = [
  ['CorsListener::onKernelResponse', 0],
  ['ResponseListener::onKernelResponse', 0],
  ['ProfilerListener::onKernelResponse', -100],
  ['ErrorListener::removeCspHeader', -128],
  ['DisallowRobotsIndexingListener::onResponse', -255],
];
const EXCEPTION_LISTENERS: [string, number][] = [
  ['ErrorListener::logKernelException', 0],
  ['DebugErrorListener::onKernelException', -96],
  ['ErrorListener::onKernelException', -128],
];

/** The dispatcher's listener table (KernelEventDispatcher.table()), which compact Events data index into. */
const LISTENER_TABLE: Array<[string, string, number]> = [
  ...REQUEST_LISTENERS.map(([listener, priority]): [string, string, number] => ['kernel.request', listener, priority]),
  ...RESPONSE_LISTENERS.map(([listener, priority]): [string, string, number] => [
    'kernel.response',
    listener,
    priority,
  ]),
  ['kernel.finish_request', 'LocaleListener::onKernelFinishRequest', 0],
  ['kernel.finish_request', 'RouterListener::onKernelFinishRequest', 0],
  ['kernel.terminate', 'ProfilerListener::onKernelTerminate', -1024],
  ...EXCEPTION_LISTENERS.map(([listener, priority]): [string, string, number] => [
    'kernel.exception',
    listener,
    priority,
  ]),
];
const tableRow = (event: string, listener: string) =>
  LISTENER_TABLE.findIndex(([e, l]) => e === event && l === listener);

/** A small seeded generator (mulberry32): the same index always gives the same profile. */
class Random {
  constructor(private state: number) {}

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** A duration as performance.now() differences are: a double with all its digits. */
  ms(scale: number): number {
    return this.next() * scale;
  }
}

function clientIp(r: Random): string {
  const roll = r.next();
  if (roll < 0.45) return '127.0.0.1';
  if (roll < 0.55) return '::1';
  if (roll < 0.8) return `192.168.${r.int(0, 3)}.${r.int(2, 254)}`;
  if (roll < 0.92) return `10.${r.int(0, 20)}.${r.int(0, 255)}.${r.int(1, 254)}`;
  if (roll < 0.97) return `172.${r.int(16, 31)}.${r.int(0, 255)}.${r.int(1, 254)}`;
  return `2001:db8:${r.int(0, 0xffff).toString(16)}::${r.int(1, 0xffff).toString(16)}`;
}

function pickRoute(r: Random): Route {
  let roll = r.next() * TOTAL_WEIGHT;
  for (const route of ROUTES) {
    roll -= route.weight;
    if (roll < 0) return route;
  }
  return ROUTES[0];
}

/** A realistic profile for this index (see SampleProfileOptions). */
export function sampleProfile(index: number, options: SampleProfileOptions = {}): ProfileRecord {
  const r = new Random(index * 2654435761);
  const kind = kindOf(index);
  const picked = pickRoute(r);
  const route = kind === 'profiler' ? PROFILER_ROUTE : kind === 'asset' ? ASSET_ROUTE : picked;
  const host = r.pick(HOSTS);
  const path = route.path(r);
  const query = route.query?.(r) ?? null;
  const queryString = query ? new URLSearchParams(query).toString() : null;
  const url = `${host}${path}${queryString ? `?${queryString}` : ''}`;
  const statusCode = route.status(r);
  const time = options.time ?? BASE_TIME + index * 1000;
  const token = options.token ?? (index % 0x1000000).toString(16).padStart(6, '0');
  const ip = clientIp(r);
  const matched = route.name !== '';
  const failed = statusCode >= 400;

  // Listener calls, in dispatch order, with their timings.
  const calls: {
    event: string;
    listener: string;
    priority: number;
    start: number;
    duration: number;
    stoppedPropagation: boolean;
  }[] = [];
  let clock = r.ms(0.05);
  const call = (event: string, [listener, priority]: [string, number], stops = false) => {
    const duration = r.ms(listener.startsWith('Router') ? 0.9 : 0.12);
    calls.push({ event, listener, priority, start: clock, duration, stoppedPropagation: stops });
    clock += duration + r.ms(0.02);
  };
  const requestListeners = matched ? REQUEST_LISTENERS : REQUEST_LISTENERS.slice(0, 5);
  requestListeners.forEach((l, i) => call('kernel.request', l, !matched && i === requestListeners.length - 1));
  let controller: { name: string; category: string; start: number; duration: number } | null = null;
  if (matched) {
    clock += r.ms(0.3);
    controller = {
      name: route.controller,
      category: 'controller',
      start: clock,
      duration: r.ms(route.template ? 9 : 4),
    };
    clock += controller.duration;
  }
  if (failed) EXCEPTION_LISTENERS.forEach((l) => call('kernel.exception', l));
  const responseStart = clock;
  RESPONSE_LISTENERS.forEach((l) => call('kernel.response', l));
  call('kernel.finish_request', ['LocaleListener::onKernelFinishRequest', 0]);
  call('kernel.finish_request', ['RouterListener::onKernelFinishRequest', 0]);
  call('kernel.terminate', ['ProfilerListener::onKernelTerminate', -1024]);
  const total = clock + r.ms(0.5);

  // As the collectors store them: a kernel notification is [its call's index, time] (LogsCollector).
  const logs: Array<
    | { level: number; channel: string; message: string; context: Record<string, unknown>; time: number }
    | [number, number]
  > = [];
  const log = (level: number, channel: string, message: string, context: Record<string, unknown>) =>
    logs.push({ level, channel, message, context, time: time + Math.floor(logs.length / 6) });
  const notified = (index: number) => logs.push([index, time + Math.floor(logs.length / 6)]);
  calls.forEach((c, i) => c.event === 'kernel.request' && notified(i));
  if (matched) {
    const params = path.split('/').filter(Boolean).slice(1, 2);
    log(200, 'request', 'Matched route "{route}".', {
      route: route.name,
      route_parameters: {
        _route: route.name,
        _controller: route.controller,
        ...(params.length ? { [route.routePath.split(':')[1] ?? 'id']: params[0] } : {}),
      },
      request_uri: url,
      method: route.method,
    });
    for (let q = r.int(1, 4); q > 0; q--) {
      log(100, 'database', 'Executed query in {duration} ms: {sql}', {
        sql: r.pick([
          'select "p"."id", "p"."slug", "p"."name", "p"."price", "p"."stock" from "products" as "p" where "p"."slug" = $1 limit $2',
          'select "c"."id", "c"."name" from "categories" as "c" where "c"."slug" = $1',
          'select "i"."product_id", "i"."quantity", "i"."unit_price" from "cart_items" as "i" where "i"."cart_id" = $1',
          'select count(*) as "count" from "products" as "p" where "p"."category_id" = $1',
          'update "carts" set "updated_at" = $1 where "id" = $2',
        ]),
        parameters: [r.int(1, 5000), 20],
        duration: Number(r.ms(3).toFixed(3)),
      });
    }
  } else {
    log(400, 'request', 'Uncaught Exception {class}: "{message}" at {file} line {line}', {
      class: 'NotFoundHttpException',
      message: `No route found for "${route.method} ${url}"`,
      file: 'src/lifecycle/listeners/router.listener.ts',
      line: 71,
    });
  }
  if (failed && matched)
    log(statusCode >= 500 ? 500 : 400, 'request', 'Uncaught Exception {class}: "{message}" at {file} line {line}', {
      class: statusCode >= 500 ? 'Error' : 'HttpException',
      message: STATUS_TEXT[statusCode] ?? 'Error',
      file: 'src/shop/catalogue/catalogue.service.ts',
      line: r.int(20, 200),
    });
  calls.forEach((c, i) => c.event !== 'kernel.request' && notified(i));
  const levelOf = (l: (typeof logs)[number]) => (Array.isArray(l) ? 100 : l.level);

  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  const headers: Record<string, string> = {
    host: host.replace(/^https?:\/\//, ''),
    connection: 'keep-alive',
    'user-agent': r.pick(USER_AGENTS),
    accept: route.template
      ? 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
      : 'application/json',
    'accept-encoding': 'gzip, deflate, br, zstd',
    'accept-language': r.pick(['en-GB,en;q=0.9', 'fr-FR,fr;q=0.9,en;q=0.8', 'de-DE,de;q=0.9,en;q=0.7']),
    cookie: '******',
    'sec-fetch-dest': 'document',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-site': 'same-origin',
    'upgrade-insecure-requests': '1',
    ...(r.chance(0.6) ? { referer: `${host}/catalogue/${r.pick(CATEGORIES)}` } : {}),
    ...(hasBody
      ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(r.int(20, 400)), origin: host }
      : {}),
  };
  const responseHeaders: Record<string, string> = {
    'x-powered-by': 'Express',
    'content-type': route.asset
      ? ASSET_TYPES[path.slice(path.lastIndexOf('.') + 1)]
      : route.template || failed
        ? 'text/html; charset=utf-8'
        : 'application/json; charset=utf-8',
    'content-length': String(r.int(300, 60000)),
    'cache-control': 'no-cache, private',
    'x-debug-token': token,
    'x-debug-token-link': `${host}/_profiler/${token}`,
    'x-robots-tag': 'noindex',
    ...(statusCode === 302 || statusCode === 303
      ? { location: r.pick(['/cart', '/checkout', '/account/orders', '/login']) }
      : {}),
  };

  const data: Record<string, unknown> = {
    request: {
      method: route.method,
      url,
      scheme: host.startsWith('https') ? 'https' : 'http',
      host: headers.host,
      path,
      queryString,
      query: query ?? {},
      route: matched ? route.name : null,
      routeParams: {},
      controller: matched ? route.controller : null,
      attributes: matched ? { _locale: 'en' } : {},
      locale: 'en',
      clientIp: ip,
      remoteAddress: ip.includes(':') ? ip : `::ffff:${ip}`,
      httpVersion: '1.1',
      headers,
      cookies: [{ name: 'sid', value: '******' }, ...(r.chance(0.3) ? [{ name: 'locale', value: '******' }] : [])],
      body: hasBody
        ? {
            contentType: 'application/x-www-form-urlencoded',
            length: Number(headers['content-length']),
            parsed: { product: String(r.int(1, 5000)), quantity: String(r.int(1, 3)), _csrf_token: '******' },
            excerpt: null,
          }
        : null,
      session: r.chance(0.7)
        ? {
            cart: { id: r.int(1, 90000), items: r.int(0, 6) },
            user: r.chance(0.4) ? { id: r.int(1, 900), email: `customer${r.int(1, 900)}@example.com` } : null,
          }
        : null,
      xhr: !route.template && r.chance(0.5),
    },
    response: {
      statusCode,
      statusText: STATUS_TEXT[statusCode] ?? '',
      headers: responseHeaders,
      contentType: responseHeaders['content-type'],
      size: Number(responseHeaders['content-length']),
      streamed: false,
      completed: true,
    },
    ...(failed
      ? {
          exception: {
            exceptions: [
              {
                position: 1,
                count: 1,
                class: matched ? (statusCode >= 500 ? 'Error' : 'HttpException') : 'NotFoundHttpException',
                message: matched ? (STATUS_TEXT[statusCode] ?? 'Error') : `No route found for "${route.method} ${url}"`,
                statusCode,
                statusText: STATUS_TEXT[statusCode] ?? '',
                frames: [
                  {
                    function: 'RouterListener.onKernelRequest',
                    file: 'src/lifecycle/listeners/router.listener.ts',
                    line: 71,
                    column: 15,
                    vendor: false,
                  },
                  {
                    function: 'KernelEventDispatcher.dispatch',
                    file: 'src/lifecycle/event-dispatcher.ts',
                    line: 101,
                    column: 16,
                    vendor: false,
                  },
                  {
                    function: 'HttpKernel.handle',
                    file: 'src/lifecycle/http-kernel.ts',
                    line: 88,
                    column: 23,
                    vendor: false,
                  },
                  {
                    function: 'Layer.handleRequest',
                    file: 'node_modules/router/lib/layer.js',
                    line: 152,
                    column: 17,
                    vendor: true,
                  },
                  { function: 'trimPrefix', file: 'node_modules/router/index.js', line: 342, column: 13, vendor: true },
                  { function: 'next', file: 'node_modules/router/index.js', line: 297, column: 9, vendor: true },
                  {
                    function: 'Function.handle',
                    file: 'node_modules/router/index.js',
                    line: 186,
                    column: 3,
                    vendor: true,
                  },
                  { function: 'Server.emit', file: 'node:events', line: 519, column: 28, vendor: true },
                ],
              },
            ],
          },
        }
      : {}),
    logs: {
      entries: logs,
      truncated: 0,
      counts: {
        errors: logs.filter((l) => levelOf(l) >= 400).length,
        warnings: 0,
        deprecations: 0,
        debug: logs.filter((l) => levelOf(l) === 100).length,
      },
    },
    // As EventsCollector stores them: the listener table, and each call as [row, start µs, duration µs].
    events: {
      listeners: LISTENER_TABLE,
      calls: calls.flatMap((c) => [
        tableRow(c.event, c.listener),
        Math.round(c.start * 1000),
        Math.round(c.duration * 1000),
      ]),
      stopped: calls.flatMap((c, i) => (c.stoppedPropagation ? [i] : [])),
    },
    routing: {
      method: route.method,
      path,
      route: matched ? route.name : null,
      routePath: matched ? route.routePath : null,
      params: {},
      controller: matched ? route.controller : null,
      redirectTo: null,
      failure: matched
        ? null
        : {
            status: statusCode,
            messages: [{ class: 'ResourceNotFoundException', message: `No routes found for "${path}".` }],
          },
    },
    // Version 2: the event and listener bars are derived from the Events data when the profile is read.
    performance: { version: 2, total, untilResponse: responseStart, sections: controller ? [controller] : [] },
    memory: {
      rss: r.int(90, 160) * MB + r.int(0, MB),
      peakRss: 171 * MB + r.int(0, MB),
      heapUsed: r.int(30, 70) * MB + r.int(0, MB),
      heapTotal: 80 * MB + r.int(0, MB),
      external: 4 * MB + r.int(0, MB),
      arrayBuffers: r.int(100, 900) * 1024,
    },
    ...(route.template
      ? {
          templates: {
            renders: [{ name: route.template, start: responseStart - r.ms(4), duration: r.ms(3.5), error: null }],
          },
        }
      : {}),
    config: {
      app: { name: 'shopkernel', version: '0.1.0' },
      nestVersion: '12.5.1',
      nodeVersion: 'v20.20.2',
      platform: 'linux x64',
      environment: 'dev',
      debug: true,
      timezone: 'Europe/Paris',
      locale: 'en',
      modules: MODULES,
      profilerStore: 'sqlite:/srv/shopkernel/var/profiler.sqlite',
      pid: 4242,
    },
  };
  // A second sequence, so that the data above stays as it was before these were added (the figures compare).
  const extra = new Random(index * 40503 + 17);
  const traceId = Array.from({ length: 4 }, () => extra.int(0, 0xffffffff).toString(16).padStart(8, '0')).join('');
  (data.request as Record<string, unknown>).trace = { traceId, spanId: traceId.slice(0, 16), parentSpanId: null };
  // About one cart request in 250 runs short of stock: a rare message to search for.
  if (matched && route.name.startsWith('cart') && extra.chance(0.004))
    log(300, 'app', 'Insufficient stock for product "{product}": {left} left', { product: 'wool-hat', left: 1 });
  const exceptions = (data.exception as { exceptions: { class: string; message: string }[] } | undefined)?.exceptions;
  // As the collectors' searchText() gives it (ProfilerService.searchText).
  const text = [
    ...(matched ? [route.name, route.controller] : []),
    traceId,
    ...(exceptions ?? []).map((e) => `${e.class}: ${e.message}`),
    ...logs.flatMap((l) => (Array.isArray(l) ? [] : [interpolate(l.message, l.context)])),
  ];
  // As Profile.toRecord rounds it: to the microsecond.
  const duration = Math.round(total * 1000) / 1000;
  return {
    token,
    parent: options.parent ?? null,
    ip,
    method: route.method,
    url,
    time,
    statusCode,
    kind,
    duration,
    route: route.name || null,
    redirectedFrom: options.redirectedFrom ?? null,
    data,
    ...(options.withText ? { text } : {}),
  };
}
