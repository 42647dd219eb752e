import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ExportResult } from '@opentelemetry/core';
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { AppConfig } from '../../config/app-config.js';
import { KernelLogger } from '../../lifecycle/logging/kernel-logger.js';
import { LogLevel } from '../../lifecycle/logging/log-level.js';
import { ProfilerService } from '../profiler.service.js';
import type { ProfileRecord } from '../storage/profile-record.js';
import { profileSpans, type SpanOrigin } from './profile-spans.js';

/** Profiles waiting for the collector at the most; more are dropped, and counted. */
export const OTLP_QUEUE_LIMIT = 2000;
/** Profiles sent in one export. */
const BATCH = 100;
/** How often the queue is sent. */
const INTERVAL_MS = 500;
/** How long one export may take. */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * Exports every stored profile as OTLP spans (profileSpans) to PROFILER_OTLP_ENDPOINT through OpenTelemetry's
 * OTLP/HTTP exporter: queued when the profile is complete (after its response), sent in batches by a timer that
 * runs outside every request, so that the export never waits on a request nor shows in one. While the collector
 * is down a batch goes back to the queue; past OTLP_QUEUE_LIMIT profiles are dropped and counted, and the app
 * answers as ever.
 */
@Injectable()
export class OtlpProfileExporter implements OnModuleInit, OnApplicationShutdown {
  private readonly queue: ProfileRecord[] = [];
  private exporter: OTLPTraceExporter | undefined;
  /** ExportResultCode.SUCCESS, once the exporter's modules are loaded. */
  private success: ExportResult['code'] | undefined;
  private origin: SpanOrigin | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sending = false;
  private failing = false;
  /** Profiles dropped because the queue was full. */
  dropped = 0;
  /** Profiles the collector took. */
  exported = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly profiler: ProfilerService,
    private readonly logger: KernelLogger,
  ) {}

  /** The exporter's modules are loaded only when an endpoint is set: a process without one never needs them. */
  async onModuleInit(): Promise<void> {
    const { endpoint, serviceName } = this.config.profiler.otlp;
    if (endpoint === null || !this.profiler.enabled) return;
    const [{ OTLPTraceExporter }, { resourceFromAttributes }, { ExportResultCode }] = await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
    ]);
    this.success = ExportResultCode.SUCCESS;
    const url = endpoint.replace(/\/+$/, '').endsWith('/v1/traces')
      ? endpoint
      : `${endpoint.replace(/\/+$/, '')}/v1/traces`;
    this.exporter = new OTLPTraceExporter({ url, timeoutMillis: EXPORT_TIMEOUT_MS });
    this.origin = {
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
      scope: { name: 'shopkernel-profiler', version: '1.0.0' },
    };
    this.profiler.onCompleted((record) => this.enqueue(record));
    this.timer = setInterval(() => void this.send(), INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.exporter) return;
    clearInterval(this.timer);
    await this.send();
    await this.exporter.shutdown();
  }

  private enqueue(record: ProfileRecord): void {
    if (this.queue.length >= OTLP_QUEUE_LIMIT) {
      this.dropped++;
      return;
    }
    this.queue.push(record);
  }

  /** Sends the queue's first batch (one export at a time); a failed batch goes back to the front. */
  async send(): Promise<void> {
    if (this.sending || this.queue.length === 0 || !this.exporter || !this.origin) return;
    this.sending = true;
    const batch = this.queue.splice(0, BATCH);
    try {
      const spans = batch.flatMap((record) => profileSpans(this.profiler.expand(record), this.origin!));
      const result = await new Promise<ExportResult>((resolve) => this.exporter!.export(spans, resolve));
      if (result.code !== this.success) throw result.error ?? new Error('the collector refused the spans');
      this.exported += batch.length;
      if (this.failing) this.logger.record(LogLevel.INFO, 'profiler', 'The OTLP collector takes spans again.');
      this.failing = false;
    } catch (error) {
      const room = OTLP_QUEUE_LIMIT - this.queue.length;
      this.queue.unshift(...batch.slice(0, room));
      this.dropped += Math.max(0, batch.length - room);
      if (!this.failing)
        this.logger.record(
          LogLevel.WARNING,
          'profiler',
          'The OTLP collector does not take spans ({message}): they wait, at most {limit} profiles.',
          {
            message: error instanceof Error ? error.message : String(error),
            limit: OTLP_QUEUE_LIMIT,
          },
        );
      this.failing = true;
    } finally {
      this.sending = false;
    }
  }
}
