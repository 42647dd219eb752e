import { Route } from './route.js';

/** The application's routes, in the order they are tried (the order Nest registers them with Express). */
export class RouteCollection {
  private readonly routes: Route[] = [];
  private readonly byName = new Map<string, Route>();

  add(route: Route): Route {
    this.routes.push(route);
    this.byName.set(route.name, route);
    return route;
  }

  /** A name not used yet: the given one, else with `_2`, `_3`, ... appended. */
  uniqueName(name: string): string {
    if (!this.byName.has(name)) return name;
    let i = 2;
    while (this.byName.has(`${name}_${i}`)) i++;
    return `${name}_${i}`;
  }

  get(name: string): Route | undefined {
    return this.byName.get(name);
  }

  all(): readonly Route[] {
    return this.routes;
  }

  get size(): number {
    return this.routes.length;
  }
}
