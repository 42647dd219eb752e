import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type ResponseEvent } from '../kernel.events.js';

/** A development instance must not end up in search engines: `X-Robots-Tag: noindex` on every response. */
@Injectable()
export class DisallowRobotsIndexingListener {
  constructor(private readonly config: AppConfig) {}

  @KernelListener(KernelEvents.RESPONSE, { priority: -255 })
  onResponse(event: ResponseEvent): void {
    if (this.config.disallowRobotsIndexing && !event.response.hasHeader('x-robots-tag')) {
      event.response.setHeader('X-Robots-Tag', 'noindex');
    }
  }
}
