import type { Response } from 'express';
import { AppConfig } from '../../config/app-config.js';
import { KernelContext, kernelContextStorage } from '../kernel-context.js';
import { Route } from './route.js';
import { RouteCollection } from './route-collection.js';
import type { RouteTable } from './route-table.js';
import { ROUTER_CONTEXT, RouteNotFoundException, UrlGenerator } from './url-generator.js';

describe('UrlGenerator', () => {
  const routes = new RouteCollection();
  routes.add(new Route('_profiler', '/_profiler/:token', ['GET'], 'ProfilerController::panel'));
  routes.add(new Route('product', '/products/:slug', ['GET'], 'ProductController::show'));
  routes.add(new Route('files', '/files/*path', ['GET'], 'FileController::show'));
  const table = { routes } as unknown as RouteTable;
  const config = AppConfig.fromEnv({ APP_ENV: 'test', HOST: 'shop.test', PORT: '8080' });
  const urls = new UrlGenerator(table, config);

  it('fills path parameters, percent-encoded', () => {
    expect(urls.generate('_profiler', { token: 'a1b2c3' })).toBe('/_profiler/a1b2c3');
    expect(urls.generate('product', { slug: 'red shoe/2' })).toBe('/products/red%20shoe%2F2');
  });

  it('appends the parameters the path does not name as a query string', () => {
    expect(urls.generate('product', { slug: 'hat', page: 2, q: 'a&b' })).toBe('/products/hat?page=2&q=a%26b');
  });

  it("builds absolute URLs on the current request's scheme and host, else on the configured host and port", () => {
    expect(urls.generate('_profiler', { token: 'a1b2c3' }, true)).toBe('http://shop.test:8080/_profiler/a1b2c3');
    const context = new KernelContext({} as Response, 'en');
    context.set(ROUTER_CONTEXT, { scheme: 'https', httpHost: 'example.com:8443' });
    const url = kernelContextStorage.run(context, () => urls.generate('_profiler', { token: 'ffffff' }, true));
    expect(url).toBe('https://example.com:8443/_profiler/ffffff');
  });

  it('names the route it does not know', () => {
    expect(() => urls.generate('nope')).toThrow(RouteNotFoundException);
    expect(() => urls.generate('nope')).toThrow(
      'Unable to generate a URL for the named route "nope" as such route does not exist.',
    );
  });

  it("knows each route's parameter names, wildcards included", () => {
    expect([...routes.get('files')!.parameterNames]).toEqual(['path']);
    expect([...routes.get('_profiler')!.parameterNames]).toEqual(['token']);
  });
});
