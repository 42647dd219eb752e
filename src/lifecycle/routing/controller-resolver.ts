import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

/** A Nest controller method: its class and the method itself, where its decorators' metadata lives. */
export interface ControllerHandler {
  target: object;
  method: (...args: unknown[]) => unknown;
}

/**
 * Symfony's ControllerResolver for Nest controllers: from a route's `_controller` (`Class::method`) to the class
 * and method the kernel.controller listeners read decorators from. Nest names the function it registers for a
 * route `Class.method` (the adapter turns that into `_controller`), so the map is built once from the discovered
 * controllers, when first asked (the routes exist by then).
 */
@Injectable()
export class ControllerResolver {
  private handlers: Map<string, ControllerHandler> | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  resolve(controller: string): ControllerHandler | undefined {
    this.handlers ??= this.discover();
    return this.handlers.get(controller);
  }

  private discover(): Map<string, ControllerHandler> {
    const handlers = new Map<string, ControllerHandler>();
    for (const wrapper of this.discovery.getControllers()) {
      const target = wrapper.metatype as (new (...args: unknown[]) => unknown) | undefined;
      if (!target?.prototype) continue;
      // Methods up the prototype chain, the most derived first (what Nest scans for route handlers too).
      for (const methodName of this.scanner.getAllMethodNames(target.prototype)) {
        const key = `${wrapper.name}::${methodName}`;
        if (!handlers.has(key)) handlers.set(key, { target, method: target.prototype[methodName] });
      }
    }
    return handlers;
  }
}
