import { SetMetadata } from '@nestjs/common';
import type { KernelEventName } from './kernel.events.js';

export const KERNEL_LISTENER_METADATA = 'shopkernel:kernel-listener';

export interface KernelListenerOptions {
  /** Higher runs first; equal priorities run in registration order. Default 0. */
  priority?: number;
}

export interface KernelListenerMetadata {
  event: KernelEventName;
  priority: number;
}

/**
 * Marks a provider's method as a listener of a kernel event. The provider is an ordinary Nest provider; the
 * dispatcher finds it at start-up. A method may listen to several events (stack the decorator).
 */
export function KernelListener(event: KernelEventName, options: KernelListenerOptions = {}): MethodDecorator {
  return (target, key, descriptor) => {
    const existing: KernelListenerMetadata[] =
      Reflect.getMetadata(KERNEL_LISTENER_METADATA, descriptor.value as object) ?? [];
    return SetMetadata(KERNEL_LISTENER_METADATA, [...existing, { event, priority: options.priority ?? 0 }])(
      target,
      key,
      descriptor,
    );
  };
}
