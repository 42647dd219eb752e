import { Module } from '@nestjs/common';
import { DebugErrorListener } from './debug-error.listener.js';
import { DebugErrorRenderer } from './error-page/debug-error.renderer.js';
import { ExceptionFlattener } from './error-page/exception-flattener.js';
import { SourceResolver } from './error-page/source-resolver.js';

/** The debug error page, and (next) the request profiler. */
@Module({
  providers: [SourceResolver, ExceptionFlattener, DebugErrorRenderer, DebugErrorListener],
  exports: [ExceptionFlattener, DebugErrorRenderer],
})
export class ProfilerModule {}
