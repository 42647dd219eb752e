import { jest } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KernelContext, ResponsePhase } from './kernel-context.js';
import { KernelHttpAdapter, type KernelEntry } from './kernel-http.adapter.js';
import { attachContext } from './kernel-symbols.js';

/** A kernel whose entry throws, before or after it gave the request its context. */
function throwingKernel(withContext: boolean, handled: unknown[]): KernelEntry {
  return {
    handle(req, res) {
      if (withContext) {
        const context = new KernelContext(res, 'en');
        attachContext(req, res, context);
      }
      throw new Error('entry failed');
    },
    handleThrowable(error, context) {
      handled.push(error);
      context.phase = ResponsePhase.Committed;
      context.res.status(503).type('text/plain').end('answered by kernel.exception');
    },
    commitResponse: (_context, _res, body) => body,
    terminate: () => undefined,
  } as KernelEntry;
}

async function get(adapter: KernelHttpAdapter): Promise<{ status: number; text: string }> {
  adapter.initHttpServer({});
  const server: Server = adapter.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: response.status, text: await response.text() };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('KernelHttpAdapter: the server entry', () => {
  let warnings: ReturnType<typeof jest.spyOn>;
  beforeEach(() => {
    warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  });
  afterEach(() => warnings.mockRestore());

  it('sends an error thrown once the request has its context to kernel.exception', async () => {
    const handled: unknown[] = [];
    const adapter = new KernelHttpAdapter();
    adapter.bindKernel(throwingKernel(true, handled));
    expect(await get(adapter)).toEqual({ status: 503, text: 'answered by kernel.exception' });
    expect(handled.map((e) => (e as Error).message)).toEqual(['entry failed']);
    expect(warnings).not.toHaveBeenCalled();
  });

  it('answers a bare 500, and keeps serving, when the kernel fails before the request has a context', async () => {
    const handled: unknown[] = [];
    const adapter = new KernelHttpAdapter();
    adapter.bindKernel(throwingKernel(false, handled));
    expect(await get(adapter)).toEqual({ status: 500, text: 'Internal Server Error\n' });
    expect(handled).toEqual([]);
    expect(warnings).toHaveBeenCalledWith('The kernel could not take a request: entry failed');
  });
});
