import { AppConfig } from '../../config/app-config.js';
import { SourceMaps } from '../../lifecycle/errors/source-maps.js';
import { NotFoundHttpException } from '../../lifecycle/exceptions/not-found-http.exception.js';
import { ExceptionFlattener } from './exception-flattener.js';
import { SourceResolver } from './source-resolver.js';

function throwFromHere(message: string): Error {
  return new NotFoundHttpException(message, new Error(`inner ${message}`));
}

describe('ExceptionFlattener', () => {
  const flattener = new ExceptionFlattener(
    new SourceResolver(AppConfig.fromEnv({ APP_ENV: 'test' }), new SourceMaps()),
  );

  it('flattens the chain outermost first, frames pointing at this file with its code', () => {
    const [outer, inner] = flattener.flatten(throwFromHere('a'));
    expect(outer).toMatchObject({
      position: 2,
      count: 2,
      class: 'NotFoundHttpException',
      message: 'a',
      statusCode: 404,
    });
    expect(inner).toMatchObject({ position: 1, count: 2, class: 'Error', message: 'inner a' });
    expect(outer.frames[0]).toMatchObject({
      function: 'throwFromHere',
      file: 'src/profiler/error-page/exception-flattener.spec.ts',
      line: 8,
      vendor: false,
    });
    expect(outer.excerpt?.lines.find((l) => l.current)?.text).toContain('new NotFoundHttpException(message');
  });

  it('flattens a throwable once, whoever asks (the error page, then the Exception panel)', () => {
    const error = throwFromHere('b');
    expect(flattener.flatten(error)).toBe(flattener.flatten(error));
  });

  it('parses and maps a call path once: another exception thrown there shares its frames, not its message', () => {
    const errors = ['c', 'd'].map((m) => throwFromHere(m));
    const [first, second] = errors.map((e) => flattener.flatten(e)[0]);
    expect(first.message).toBe('c');
    expect(second.message).toBe('d');
    expect(second.frames).toBe(first.frames);
    expect(Object.isFrozen(first.frames[0])).toBe(true);
  });

  it('keeps frames of different call paths apart', () => {
    const here = throwFromHere('e');
    const elsewhere = new NotFoundHttpException('e');
    expect(flattener.flatten(elsewhere)[0].frames).not.toBe(flattener.flatten(here)[0].frames);
    expect(flattener.flatten(elsewhere)[0].frames[0].function).not.toBe('throwFromHere');
  });
});
