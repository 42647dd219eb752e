import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { KernelHttpAdapter } from '../kernel-http.adapter.js';
import { RouteCollection } from './route-collection.js';
import { UrlMatcher } from './url-matcher.js';

/**
 * The application's route collection and its matcher, as the HTTP adapter recorded them. Resolved on first use:
 * in tests the adapter is attached after the modules are built.
 */
@Injectable()
export class RouteTable {
  private matcherInstance?: UrlMatcher;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  get routes(): RouteCollection {
    const adapter = this.adapterHost.httpAdapter;
    if (!(adapter instanceof KernelHttpAdapter)) {
      throw new Error(
        'Shopkernel needs its HTTP adapter: create the app with new KernelHttpAdapter() (see src/app.factory.ts).',
      );
    }
    return adapter.routes;
  }

  get matcher(): UrlMatcher {
    this.matcherInstance ??= new UrlMatcher(this.routes);
    return this.matcherInstance;
  }
}
