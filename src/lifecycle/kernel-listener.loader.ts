import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { KernelEventDispatcher } from './event-dispatcher.js';
import { KERNEL_LISTENER_METADATA, type KernelListenerMetadata } from './kernel-listener.decorator.js';

/** Registers every provider method decorated with @KernelListener, at start-up, in module and provider order. */
@Injectable()
export class KernelListenerLoader implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly dispatcher: KernelEventDispatcher,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance);
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[methodName];
        const listens: KernelListenerMetadata[] | undefined = Reflect.getMetadata(KERNEL_LISTENER_METADATA, method);
        if (!listens) continue;
        for (const { event, priority } of listens) {
          this.dispatcher.addListener(
            event,
            method.bind(instance),
            priority,
            `${instance.constructor.name}::${methodName}`,
          );
        }
      }
    }
  }
}
