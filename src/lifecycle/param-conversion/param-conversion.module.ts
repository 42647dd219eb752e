import { Module } from '@nestjs/common';
import { ParamConverterListener } from './param-converter.listener.js';

/**
 * `@ConvertParam` support: the ParamConverterListener (kernel.controller, priority 0). A feature module that
 * converts parameters imports this module; Nest makes one listener however many modules import it.
 */
@Module({ providers: [ParamConverterListener] })
export class ParamConversionModule {}
