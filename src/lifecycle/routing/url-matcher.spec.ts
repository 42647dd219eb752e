import { MethodNotAllowedException } from '../exceptions/method-not-allowed.exception.js';
import { ResourceNotFoundException } from '../exceptions/resource-not-found.exception.js';
import { Route } from './route.js';
import { RouteCollection } from './route-collection.js';
import { UrlMatcher } from './url-matcher.js';

function matcher(): UrlMatcher {
  const routes = new RouteCollection();
  routes.add(new Route('products_index', '/products', ['GET'], 'ProductsController::index'));
  routes.add(new Route('products_new', '/products/new', ['GET'], 'ProductsController::new'));
  routes.add(new Route('products_show', '/products/:slug', ['GET'], 'ProductsController::show'));
  routes.add(new Route('cart_add', '/cart', ['POST'], 'CartController::add'));
  routes.add(new Route('cart_replace', '/cart', ['PUT'], 'CartController::replace'));
  routes.add(new Route('profiler_home', '/_profiler/', ['GET'], 'ProfilerController::home'));
  routes.add(new Route('files', '/files/*path', ['GET'], 'FilesController::show'));
  routes.add(new Route('any', '/any', [], 'AnyController::any'));
  return new UrlMatcher(routes);
}

/** What `fn` throws (the matcher's exceptions carry `message` and, for a 405, `allowedMethods`). */
function thrown(fn: () => unknown): Error & { allowedMethods?: string[] } {
  try {
    fn();
  } catch (error) {
    return error as Error & { allowedMethods?: string[] };
  }
  throw new Error('expected a throw');
}

describe('UrlMatcher', () => {
  it('matches the first route in order, with decoded parameters', () => {
    expect(matcher().match('/products/new', 'GET').route.name).toBe('products_new');
    const match = matcher().match('/products/caf%C3%A9%20cr%C3%A8me', 'GET');
    expect(match.route.name).toBe('products_show');
    expect(match.params).toEqual({ slug: 'café crème' });
    expect(match.redirectTo).toBeUndefined();
  });

  it('joins wildcard segments', () => {
    expect(matcher().match('/files/a/b%20c.txt', 'GET').params).toEqual({ path: 'a/b c.txt' });
  });

  it('matches paths case-insensitively, as Express does by default, and case-sensitively as the application sets it', () => {
    expect(matcher().match('/Products', 'GET').route.name).toBe('products_index');
    const routes = new RouteCollection();
    routes.add(new Route('account', '/account', ['GET'], 'AccountController::show', { caseSensitive: true }));
    const sensitive = new UrlMatcher(routes);
    expect(sensitive.match('/account', 'GET').route.name).toBe('account');
    for (const path of ['/Account', '/ACCOUNT', '/%61ccount', '//account'])
      expect(thrown(() => sensitive.match(path, 'GET'))).toBeInstanceOf(ResourceNotFoundException);
  });

  it('accepts HEAD on GET routes and any method on method-less routes', () => {
    expect(matcher().match('/products', 'HEAD').route.name).toBe('products_index');
    expect(matcher().match('/any', 'DELETE').route.name).toBe('any');
  });

  it('throws MethodNotAllowedException with every allowed method when only the method differs', () => {
    const error = thrown(() => matcher().match('/cart', 'GET'));
    expect(error).toBeInstanceOf(MethodNotAllowedException);
    expect(error.allowedMethods).toEqual(['POST', 'PUT']);
    expect(error.message).toBe('');
  });

  it('redirects GET to the path with a trailing slash added or removed when only that one exists', () => {
    expect(matcher().match('/_profiler', 'GET')).toMatchObject({
      redirectTo: '/_profiler/',
      route: { name: 'profiler_home' },
    });
    expect(matcher().match('/products/', 'HEAD')).toMatchObject({
      redirectTo: '/products',
      route: { name: 'products_index' },
    });
  });

  it('names the toggled path in the not-found message for GET and HEAD', () => {
    expect(thrown(() => matcher().match('/this/does/not/exist', 'GET')).message).toBe(
      'No routes found for "/this/does/not/exist/".',
    );
    expect(thrown(() => matcher().match('/foo/', 'HEAD')).message).toBe('No routes found for "/foo".');
  });

  it('does not redirect other methods, and names the path as requested', () => {
    const error = thrown(() => matcher().match('/products/', 'POST'));
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error.message).toBe('No routes found for "/products/".');
  });

  it('trims every trailing slash, and copes with a path of thousands of slashes at once', () => {
    expect(matcher().match('/products///', 'GET')).toMatchObject({
      redirectTo: '/products',
      route: { name: 'products_index' },
    });
    const slashes = `/${'/'.repeat(200_000)}x`;
    expect(thrown(() => matcher().match(slashes, 'GET')).message).toBe(`No routes found for "${slashes}/".`);
  });

  it('tries, in order, every route that can match a path: the same first match as a scan of every route', () => {
    const routes = new RouteCollection();
    const add = (name: string, path: string, methods: string[], caseSensitive = false) =>
      routes.add(new Route(name, path, methods, `C::${name}`, { caseSensitive }));
    add('home', '/', ['GET']);
    add('slug_first', '/:slug', ['POST']);
    add('products', '/products', ['GET']);
    add('optional', '/shop{/:page}', ['GET']);
    add('sensitive', '/API/items', ['GET'], true);
    add('dotted', '/feed.xml', ['GET']);
    add('wild', '/assets/*file', ['GET']);
    add('late_dynamic', '/:a/:b', ['GET']);
    add('after_dynamic', '/products/new', ['GET']);
    const indexed = new UrlMatcher(routes);
    const candidates = (path: string): readonly Route[] =>
      (indexed as unknown as { candidates(path: string): readonly Route[] }).candidates(path);
    const paths = [
      '/',
      '//',
      '/x',
      '/products',
      '/PRODUCTS',
      '/products/',
      '/products/new',
      '/Products/New',
      '/shop',
      '/shop/3',
      '/Shop/3/',
      '/API/items',
      '/api/items',
      '/Api/Items',
      '/feed.xml',
      '/FEED.XML',
      '/assets/a/b.css',
      '/unknown/path',
      '/%70roducts',
      '/caf%C3%A9',
      '/a/b/c',
      '/\u00e9t\u00e9',
      '*',
    ];
    for (const path of paths) {
      const tried = candidates(path);
      // Every route that matches the path is among the candidates, and the candidates keep the routes' order.
      const matching = routes
        .all()
        .filter((route) => route.matchPath(path) !== null)
        .map((route) => route.name);
      expect([path, matching.filter((name) => !tried.some((route) => route.name === name))]).toEqual([path, []]);
      const positions = tried.map((route) => routes.all().indexOf(route));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
    // An unknown first segment is tried against the dynamic routes only.
    expect(candidates('/unknown/path').map((route) => route.name)).toEqual(['slug_first', 'optional', 'late_dynamic']);
    expect(indexed.match('/products/new', 'GET').route.name).toBe('late_dynamic');
    expect(indexed.match('/Shop/3', 'GET').route.name).toBe('optional');
    // The case-sensitive route does not take the lower-cased path: the dynamic route after it does.
    expect(indexed.match('/api/items', 'GET').route.name).toBe('late_dynamic');
    expect(indexed.match('/API/items', 'GET').route.name).toBe('sensitive');
    // A route added later is indexed too.
    add('added', '/later', ['GET']);
    expect(indexed.match('/later', 'GET').route.name).toBe('added');
  });

  it('does not toggle the root path', () => {
    const routes = new RouteCollection();
    routes.add(new Route('x', '/x', ['GET'], 'X::x'));
    expect(thrown(() => new UrlMatcher(routes).match('/', 'GET')).message).toBe('No routes found for "/".');
  });
});

describe('UrlMatcher.trace', () => {
  it('replays the matching route by route, up to the first match', () => {
    expect(
      matcher()
        .trace('/cart', 'PUT')
        .map((t) => [t.name, t.result]),
    ).toEqual([
      ['products_index', 'path does not match'],
      ['products_new', 'path does not match'],
      ['products_show', 'path does not match'],
      ['cart_add', 'method does not match'],
      ['cart_replace', 'matches'],
    ]);
  });

  it('lists every route when none matches', () => {
    const traces = matcher().trace('/nowhere', 'GET');
    expect(traces).toHaveLength(8);
    expect(traces.every((t) => t.result === 'path does not match')).toBe(true);
    expect(traces[7]).toEqual({ name: 'any', path: '/any', methods: [], result: 'path does not match' });
  });
});

describe('UrlMatcher and debug-only routes', () => {
  function debugMatcher(): UrlMatcher {
    const routes = new RouteCollection();
    routes.add(
      new Route('_profiler_home', '/_profiler/', ['GET'], 'ProfilerController::home', {
        caseSensitive: true,
        debugOnly: true,
      }),
    );
    routes.add(
      new Route('_profiler_search', '/_profiler/search', ['GET'], 'ProfilerController::search', {
        caseSensitive: true,
        debugOnly: true,
      }),
    );
    routes.add(
      new Route('_profiler', '/_profiler/:token', ['GET'], 'ProfilerController::panel', {
        caseSensitive: true,
        debugOnly: true,
      }),
    );
    routes.add(new Route('products_index', '/products', ['GET'], 'ProductsController::index', { caseSensitive: true }));
    return new UrlMatcher(routes);
  }

  it('matches them for a client who may see them: the 301, the 405 and the route itself', () => {
    const m = debugMatcher();
    expect(m.match('/_profiler', 'GET', true).redirectTo).toBe('/_profiler/');
    expect(thrown(() => m.match('/_profiler/search', 'POST', true))).toBeInstanceOf(MethodNotAllowedException);
    expect(m.match('/_profiler/abc123', 'GET', true).route.name).toBe('_profiler');
  });

  it('skips them for anyone else: every method on their paths is the not-found of an unknown path', () => {
    const m = debugMatcher();
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']) {
      for (const path of ['/_profiler', '/_profiler/', '/_profiler/search', '/_profiler/abc123']) {
        const error = thrown(() => m.match(path, method, false));
        expect([method, path, error.constructor]).toEqual([method, path, ResourceNotFoundException]);
      }
    }
    expect(m.match('/products', 'GET', false).route.name).toBe('products_index');
  });

  it('tells a debug path, with or without its trailing slash, and nothing else', () => {
    const m = debugMatcher();
    for (const path of ['/_profiler', '/_profiler/', '/_profiler/search', '/_profiler/search/', '/_profiler/abc123'])
      expect([path, m.isDebugPath(path)]).toEqual([path, true]);
    for (const path of ['/products', '/_PROFILER/', '/_profilers', '/x/_profiler/', '/_profiler/a/b'])
      expect([path, m.isDebugPath(path)]).toEqual([path, false]);
  });

  it('replays the matching as the client saw it', () => {
    const traces = debugMatcher().trace('/_profiler/search', 'GET', false);
    expect(traces.map((t) => t.result)).toEqual([
      'hidden from this client',
      'hidden from this client',
      'hidden from this client',
      'path does not match',
    ]);
  });
});
