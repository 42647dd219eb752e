import { NotFoundException } from '@nestjs/common';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { AppConfig } from '../../config/app-config.js';
import type { ErrorRenderer } from '../errors/error-renderer.js';
import { SourceMaps } from '../errors/source-maps.js';
import type { ExceptionEvent } from '../kernel.events.js';
import type { KernelLogger } from '../logging/kernel-logger.js';
import { LogLevel } from '../logging/log-level.js';
import { ErrorListener } from './error.listener.js';

const SOURCE = [
  'type Path = string;',
  '',
  'export function route(path: Path): never {',
  '  // nothing matches',
  '  throw new Error(path);',
  '}',
  '',
].join('\n');

describe('ErrorListener.logKernelException', () => {
  let project: string;
  let compiled: { file: string; line: number; column: number };
  const logged: Array<[LogLevel, string, string, Record<string, unknown>]> = [];
  let listener: (projectDir: string) => ErrorListener;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'shopkernel-error-listener-'));
    mkdirSync(join(project, 'src', 'routing'), { recursive: true });
    mkdirSync(join(project, 'dist', 'routing'), { recursive: true });
    writeFileSync(join(project, 'src', 'routing', 'router.ts'), SOURCE);
    const out = ts.transpileModule(SOURCE, {
      fileName: 'router.ts',
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2023, sourceMap: true },
    });
    const file = join(project, 'dist', 'routing', 'router.js');
    writeFileSync(file, out.outputText);
    writeFileSync(
      `${file}.map`,
      JSON.stringify({ ...JSON.parse(out.sourceMapText!), sources: ['../../src/routing/router.ts'] }),
    );
    const lines = out.outputText.split('\n');
    const index = lines.findIndex((l) => l.includes('throw new Error'));
    compiled = { file, line: index + 1, column: lines[index].indexOf('throw') + 1 };
    const logger = {
      record: (...args: [LogLevel, string, string, Record<string, unknown>]) => logged.push(args),
    } as unknown as KernelLogger;
    listener = (projectDir) =>
      new ErrorListener(
        {} as ErrorRenderer,
        logger,
        new SourceMaps(),
        AppConfig.fromEnv({ APP_ENV: 'test' }, { projectDir }),
      );
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));
  beforeEach(() => (logged.length = 0));

  /** An exception whose stack V8 would print for a throw at the compiled file's line (an ES module: a file: URL). */
  const thrownInDist = (): NotFoundException => {
    const error = new NotFoundException('No route found for "GET http://localhost/nowhere"');
    error.stack = `NotFoundException: ${error.message}\n    at route (${pathToFileURL(compiled.file).href}:${compiled.line}:${compiled.column})\n    at node:internal/process/task_queues:95:5`;
    return error;
  };
  const event = (throwable: unknown) =>
    ({ request: { attributes: {}, context: undefined }, throwable }) as unknown as ExceptionEvent;

  it('names where the exception was thrown in the TypeScript source, relative to the project', () => {
    listener(project).logKernelException(event(thrownInDist()));
    expect(logged).toHaveLength(1);
    const [level, channel, message, context] = logged[0];
    expect([level, channel, message]).toEqual([
      LogLevel.ERROR,
      'request',
      'Uncaught Exception {class}: "{message}" at {file} line {line}',
    ]);
    expect(context).toMatchObject({
      class: 'NotFoundException',
      message: 'No route found for "GET http://localhost/nowhere"',
      file: join('src', 'routing', 'router.ts'),
      line: 5,
    });
  });

  it('keeps the absolute source path outside the project, and the compiled one where no map leads', () => {
    listener(join(project, 'elsewhere')).logKernelException(event(thrownInDist()));
    expect(logged[0][3]).toMatchObject({ file: join(project, 'src', 'routing', 'router.ts'), line: 5 });
    rmSync(`${compiled.file}.map`);
    listener(project).logKernelException(event(thrownInDist()));
    expect(logged[1][3]).toMatchObject({ file: join('dist', 'routing', 'router.js'), line: compiled.line });
  });

  it('logs a thrown non-error as thrown nowhere, at CRITICAL for a server error', () => {
    listener(project).logKernelException(event('a string'));
    expect(logged[0][0]).toBe(LogLevel.CRITICAL);
    expect(logged[0][3]).toMatchObject({ file: 'unknown', line: 0 });
  });
});
