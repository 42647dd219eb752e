import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { Redactor } from './redactor.js';

/** Hands PROFILER_REDACT_FIELDS to the Redactor once, at start: the profiler's store and the printed log both use it. */
@Injectable()
export class RedactionConfiguration implements OnModuleInit {
  constructor(private readonly config: AppConfig) {}

  onModuleInit(): void {
    Redactor.configure(this.config.profiler.redactFields);
  }
}
