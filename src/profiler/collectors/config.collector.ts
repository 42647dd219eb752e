import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from '../../config/app-config.js';
import { MASK, Redactor } from '../../lifecycle/redaction/redactor.js';
import { DataCollector } from './data-collector.js';
import { serialisedOnce } from '../storage/profile-json.js';

export interface ConfigData {
  app: { name: string; version: string };
  nestVersion: string;
  nodeVersion: string;
  platform: string;
  environment: string;
  debug: boolean;
  timezone: string;
  locale: string;
  modules: string[];
  profilerStore: string;
  pid: number;
}

/**
 * The application's configuration: versions (app, Nest, Node), environment, debug flag, the Nest modules loaded.
 * Computed once at bootstrap; every profile carries the same small object.
 */
@Injectable()
export class ConfigCollector extends DataCollector<ConfigData> implements OnApplicationBootstrap {
  readonly name = 'config';
  readonly label = 'Configuration';
  override readonly priority = 100;
  override readonly deferrable = true;
  private snapshot?: ConfigData;

  constructor(
    private readonly config: AppConfig,
    private readonly modules: ModulesContainer,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.snapshot = serialisedOnce(this.build());
  }

  override lateCollect(): ConfigData {
    this.snapshot ??= serialisedOnce(this.build());
    return this.snapshot;
  }

  override panel(data: ConfigData): object {
    // The environment is the running process's, read when the panel opens: not copied into every profile.
    return { ...data, moduleCount: data.modules.length, environmentVariables: environmentVariables() };
  }

  private build(): ConfigData {
    const app = readJson(join(this.config.projectDir, 'package.json'));
    const nestVersion =
      readJson(join(this.config.projectDir, 'node_modules', '@nestjs', 'core', 'package.json')).version ?? 'unknown';
    const modules = [...this.modules.values()]
      .map((m) => m.metatype?.name)
      .filter((name): name is string => !!name && name !== 'InternalCoreModule')
      .sort();
    return {
      app: { name: app.name ?? 'app', version: app.version ?? '0.0.0' },
      nestVersion,
      nodeVersion: process.version,
      platform: `${process.platform} ${process.arch}`,
      environment: this.config.env,
      debug: this.config.debug,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      locale: this.config.defaultLocale,
      modules: [...new Set(modules)],
      profilerStore: describeDsn(this.config.profiler.dsn),
      pid: process.pid,
    };
  }
}

/**
 * The process's environment, as Symfony's Server Parameters show it, each value as `Redactor.variable` lets it be
 * shown: masked whole under a credential's name (`APP_SECRET`, `SENTRY_DSN`, `OTEL_EXPORTER_OTLP_HEADERS`, the
 * patterns of PROFILER_REDACT_FIELDS), else with URL passwords, secret parameters and token-shaped values masked.
 */
function environmentVariables(): Array<{ key: string; value: string }> {
  return Object.keys(process.env)
    .sort()
    .map((key) => {
      const value = process.env[key] ?? '';
      return { key, value: Redactor.variable(key, value) };
    });
}

function readJson(file: string): Record<string, string | undefined> {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/** The store's kind and place, never its credentials (the whole user part, up to the authority's last `@`). */
function describeDsn(dsn: string): string {
  return Redactor.url(dsn.replace(/\/\/[^/\s]*@/, `//${MASK}@`));
}
