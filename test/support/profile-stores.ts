import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTestApp, type TestAppOptions } from './create-test-app.js';
import { describePostgres, dropSchema, POSTGRES_URL } from './postgres.js';
import { storedProfiles } from './profiler.js';

/** The application listening on a port of its own, as a developer's browser or curl reaches it. */
export interface ListeningApp {
  app: NestExpressApplication;
  port: number;
  /** A supertest agent on the app's address (every request a real HTTP exchange). */
  http: () => ReturnType<typeof request>;
  /** Every profile waiting for its batch written (kernel.terminate runs a turn after the response). */
  written: () => Promise<void>;
}

interface ProfileStore {
  name: string;
  describe: jest.Describe;
  /** PROFILER_DSN of a store of its own, and how to remove it afterwards. */
  open: () => { dsn: string; remove: () => Promise<void> };
}

/** A SQLite file in a directory of its own: the default store, as `sqlite:var/profiler.sqlite` is. */
const sqlite: ProfileStore = {
  name: 'SQLite',
  describe,
  open: () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopkernel-profiles-'));
    return {
      dsn: `sqlite:${join(dir, 'profiler.sqlite')}`,
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

/** The PostgreSQL store in a schema of its own (skipped without a server, except in CI). */
const postgres: ProfileStore = {
  name: 'PostgreSQL',
  describe: describePostgres('PostgreSQL profile store'),
  open: () => {
    const schema = `profiles_${process.pid}_${randomBytes(4).toString('hex')}`;
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('schema', schema);
    return { dsn: url.toString(), remove: () => dropSchema(schema) };
  },
};

/**
 * Runs a suite once per profile store, each on one app built for the whole suite (beforeAll) and listening on
 * 127.0.0.1. The suite gets the running app through `current()` once its beforeAll has run.
 */
export function describeOnEachProfileStore(
  title: string,
  options: TestAppOptions,
  suite: (current: () => ListeningApp) => void,
): void {
  for (const store of [sqlite, postgres]) {
    store.describe(`${title} on the ${store.name} profile store (e2e)`, () => {
      let running: ListeningApp | undefined;
      let remove: (() => Promise<void>) | undefined;

      beforeAll(async () => {
        const opened = store.open();
        remove = opened.remove;
        const app = await createTestApp({ ...options, env: { ...options.env, PROFILER_DSN: opened.dsn } });
        await app.listen(0, '127.0.0.1');
        const port = (app.getHttpServer().address() as AddressInfo).port;
        running = {
          app,
          port,
          http: () => request(`http://127.0.0.1:${port}`),
          written: async () => void (await storedProfiles(app)),
        };
      });

      afterAll(async () => {
        await running?.app.close();
        await remove?.();
      });

      suite(() => running!);
    });
  }
}
