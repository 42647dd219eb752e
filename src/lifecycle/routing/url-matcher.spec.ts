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

function thrown(fn: () => unknown): any {
  try {
    fn();
  } catch (error) {
    return error;
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

  it('matches paths case-insensitively, as Express does by default', () => {
    expect(matcher().match('/Products', 'GET').route.name).toBe('products_index');
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
    expect(matcher().match('/_profiler', 'GET')).toMatchObject({ redirectTo: '/_profiler/', route: { name: 'profiler_home' } });
    expect(matcher().match('/products/', 'HEAD')).toMatchObject({ redirectTo: '/products', route: { name: 'products_index' } });
  });

  it('names the toggled path in the not-found message for GET and HEAD', () => {
    expect(thrown(() => matcher().match('/this/does/not/exist', 'GET')).message).toBe('No routes found for "/this/does/not/exist/".');
    expect(thrown(() => matcher().match('/foo/', 'HEAD')).message).toBe('No routes found for "/foo".');
  });

  it('does not redirect other methods, and names the path as requested', () => {
    const error = thrown(() => matcher().match('/products/', 'POST'));
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error.message).toBe('No routes found for "/products/".');
  });

  it('trims every trailing slash, and copes with a path of thousands of slashes at once', () => {
    expect(matcher().match('/products///', 'GET')).toMatchObject({ redirectTo: '/products', route: { name: 'products_index' } });
    const slashes = `/${'/'.repeat(200_000)}x`;
    expect(thrown(() => matcher().match(slashes, 'GET')).message).toBe(`No routes found for "${slashes}/".`);
  });

  it('does not toggle the root path', () => {
    const routes = new RouteCollection();
    routes.add(new Route('x', '/x', ['GET'], 'X::x'));
    expect(thrown(() => new UrlMatcher(routes).match('/', 'GET')).message).toBe('No routes found for "/".');
  });
});

describe('UrlMatcher.trace', () => {
  it('replays the matching route by route, up to the first match', () => {
    expect(matcher().trace('/cart', 'PUT').map((t) => [t.name, t.result])).toEqual([
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
