import { Injectable } from '@nestjs/common';
import { RouteTable } from '../../lifecycle/routing/route-table.js';
import { CSRF_PROTECTED_METADATA } from './csrf-protected.decorator.js';

/**
 * The CSRF token ids a script may ask for (`GET /api/csrf-token/<id>`): those the JSON API's own handlers declare
 * with `@CsrfProtected(id)` (routes under `/api/`), a feature module's included, read from the route table once
 * the routes are registered. An id only an HTML form uses stays in its page.
 */
@Injectable()
export class ApiCsrfTokenIds {
  private ids: ReadonlySet<string> | undefined;

  constructor(private readonly routes: RouteTable) {}

  get all(): ReadonlySet<string> {
    this.ids ??= new Set(
      this.routes.routes
        .all()
        .filter((route) => route.path.startsWith('/api/') && route.handler !== undefined)
        .map((route) => Reflect.getMetadata(CSRF_PROTECTED_METADATA, route.handler!) as string | undefined)
        .filter((id): id is string => typeof id === 'string')
        .sort(),
    );
    return this.ids;
  }
}
