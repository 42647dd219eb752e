import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { NotFoundHttpException } from '../exceptions/not-found-http.exception.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { KernelEvents, type FinishRequestEvent, type RequestEvent } from '../kernel.events.js';

/**
 * Locale setting (Symfony's LocaleListener): the default locale first; once the route is known, the `_locale`
 * route parameter, else the best of Accept-Language among SUPPORTED_LOCALES, else the default. The locale is
 * the request's and, for locale-aware services, the request context's; at kernel.finish_request the context
 * goes back to the default locale.
 */
@Injectable()
export class LocaleListener {
  constructor(private readonly config: AppConfig) {}

  @KernelListener(KernelEvents.REQUEST, { priority: 100 })
  setDefaultLocale(event: RequestEvent): void {
    event.request.defaultLocale = this.config.defaultLocale;
    event.request.locale = this.config.defaultLocale;
  }

  @KernelListener(KernelEvents.REQUEST, { priority: 16 })
  onKernelRequest(event: RequestEvent): void {
    const request = event.request;
    const supported = this.config.supportedLocales;
    let locale: string;
    const fromRoute = request.attributes._locale;
    if (typeof fromRoute === 'string') {
      if (!supported.includes(fromRoute))
        throw new NotFoundHttpException(`The locale "${fromRoute}" is not supported.`);
      locale = fromRoute;
    } else {
      const accepted = request.raw.headers['accept-language'] ? request.raw.acceptsLanguages(...supported) : false;
      locale = typeof accepted === 'string' ? accepted : request.defaultLocale;
    }
    request.locale = locale;
    request.context.locale = locale;
  }

  @KernelListener(KernelEvents.FINISH_REQUEST, { priority: 0 })
  onKernelFinishRequest(event: FinishRequestEvent): void {
    // What runs after the response (kernel.terminate's listeners, late collectors) formats in the default locale.
    event.request.context.locale = this.config.defaultLocale;
  }
}
