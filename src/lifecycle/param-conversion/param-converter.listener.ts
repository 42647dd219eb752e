import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { NotFoundHttpException } from '../exceptions/not-found-http.exception.js';
import { KernelListener } from '../kernel-listener.decorator.js';
import { ControllerEvent, KernelEvents } from '../kernel.events.js';
import { CONVERT_PARAM_METADATA, type ParamConversion } from './convert-param.decorator.js';
import type { ParamConverter } from './param-converter.js';

/**
 * The parameter-conversion step of kernel.controller (Symfony's ParamConverterListener): for a handler with
 * `@ConvertParam`, loads each value through its converter and stores it as a request attribute, or throws a
 * NotFoundHttpException. Loading is asynchronous and listeners are not, so the load is handed to the kernel with
 * `event.waitFor`; the kernel waits for it before kernel.controller_arguments and the handler.
 */
@Injectable()
export class ParamConverterListener {
  private readonly converters = new Map<Type<ParamConverter>, ParamConverter>();

  constructor(private readonly moduleRef: ModuleRef) {}

  @KernelListener(KernelEvents.CONTROLLER, { priority: 0 })
  onKernelController(event: ControllerEvent): void {
    const method = event.handler?.method;
    const conversions: ParamConversion[] | undefined = method
      ? Reflect.getMetadata(CONVERT_PARAM_METADATA, method)
      : undefined;
    if (!conversions?.length) return;
    const params = event.request.attributes._route_params ?? {};
    for (const conversion of conversions) {
      const raw = params[conversion.param];
      if (typeof raw !== 'string') throw new Error(`@ConvertParam: the route has no parameter "${conversion.param}".`);
      const converter = this.converter(conversion.converter);
      event.waitFor(
        converter.convert(raw, event.request).then((value) => {
          if (value === undefined || value === null) throw new NotFoundHttpException(converter.notFoundMessage(raw));
          event.request.attributes[conversion.attribute] = value;
        }),
      );
    }
  }

  private converter(type: Type<ParamConverter>): ParamConverter {
    const known = this.converters.get(type);
    if (known) return known;
    const converter = this.moduleRef.get(type, { strict: false });
    if (!converter) throw new Error(`@ConvertParam: ${type.name} is not a provider of the application.`);
    this.converters.set(type, converter);
    return converter;
  }
}
