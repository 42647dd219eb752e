import { jest } from '@jest/globals';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
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

describe('KernelHttpAdapter: a crashed process (refuseRequests)', () => {
  it('answers a request arriving on a kept-alive connection with a bare 503 that closes it, not handled', async () => {
    const handled: string[] = [];
    let release: () => void = () => undefined;
    const adapter = new KernelHttpAdapter();
    adapter.bindKernel({
      handle(req, res) {
        handled.push(req.url);
        // The first request is under way when the process crashes; it is answered after.
        release = () => res.writeHead(200, { 'Content-Length': '2' }).end('ok');
      },
      handleThrowable: () => undefined,
      commitResponse: (_context, _res, body) => body,
      terminate: () => undefined,
    } as KernelEntry);
    adapter.initHttpServer({});
    const server: Server = adapter.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    try {
      socket.write('GET /first HTTP/1.1\r\nHost: shop.test\r\n\r\n');
      await until(() => handled.length === 1);
      const stopped = adapter.refuseRequests();
      release();
      await until(() => received.endsWith('ok'));
      expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      socket.write('GET /second HTTP/1.1\r\nHost: shop.test\r\n\r\n');
      await closed;
      await stopped;
      const second = received.slice(received.indexOf('ok') + 2);
      expect(second).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(second.toLowerCase()).toContain('\r\nconnection: close\r\n');
      expect(second).toMatch(/\r\n\r\n503 Service Unavailable: the server is stopping\.\n$/);
      expect(handled).toEqual(['/first']);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
