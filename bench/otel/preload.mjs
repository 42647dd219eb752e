// What a Node user would add to see a NestJS app's requests, preloaded by the bench (`node --import
// ./bench/otel/preload.mjs <app>`) on the targets baseline-otel and app-otel, never by the application itself: the
// OpenTelemetry Node SDK with the http, express and nestjs-core instrumentations and a BatchSpanProcessor writing
// every span as a JSON line to OTEL_BENCH_FILE (a temporary file the bench chose).
import { appendFile } from 'node:fs';
import { register } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';

// The application is ESM: its imports of express and @nestjs/core reach the instrumentations only through this hook.
register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);

// Only traces: the SDK would otherwise look for metrics and logs exporters in the environment.
process.env.OTEL_METRICS_EXPORTER ??= 'none';
process.env.OTEL_LOGS_EXPORTER ??= 'none';

const { NodeSDK } = await import('@opentelemetry/sdk-node');
const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace');
const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
const { ExpressInstrumentation } = await import('@opentelemetry/instrumentation-express');
const { NestInstrumentation } = await import('@opentelemetry/instrumentation-nestjs-core');

const FILE = process.env.OTEL_BENCH_FILE ?? join(os.tmpdir(), `shopkernel-otel-${process.pid}.jsonl`);

/** A span exporter that appends each batch to FILE, one JSON object a span, as a file exporter would. */
class JsonLinesFileExporter {
  export(spans, done) {
    const lines = spans.map((span) =>
      JSON.stringify({
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        name: span.name,
        kind: span.kind,
        startTime: span.startTime,
        endTime: span.endTime,
        status: span.status,
        attributes: span.attributes,
        events: span.events,
      }),
    );
    appendFile(FILE, `${lines.join('\n')}\n`, (error) => done({ code: error ? 1 : 0, error: error ?? undefined }));
  }

  shutdown() {
    return Promise.resolve();
  }

  forceFlush() {
    return Promise.resolve();
  }
}

/**
 * The nestjs-core instrumentation as published declares Nest < 12 and would patch nothing on this app's Nest 12:
 * widened to Nest 12, whose factory and router execution context it wraps keep the same shape.
 */
class Nest12Instrumentation extends NestInstrumentation {
  init() {
    const modules = [super.init()].flat();
    for (const module of modules) {
      module.supportedVersions = ['>=4.0.0 <13'];
      for (const file of module.files) file.supportedVersions = ['>=4.0.0 <13'];
    }
    return modules;
  }
}

new NodeSDK({
  serviceName: 'shopkernel-bench',
  spanProcessors: [new BatchSpanProcessor({ exporter: new JsonLinesFileExporter() })],
  instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation(), new Nest12Instrumentation()],
}).start();
