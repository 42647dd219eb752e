import type express from 'express';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KernelHttpAdapter } from '../kernel-http.adapter.js';
import { messageClasses } from './express-internals.js';

/** Starts the adapter's server; returns what the server's first 'request' listener saw, before Express ran. */
async function serve(
  options: Record<string, unknown>,
  run: (base: string, app: express.Express) => Promise<void>,
): Promise<{ app: express.Express; seen: Array<{ req: unknown; res: unknown }> }> {
  const adapter = new KernelHttpAdapter();
  adapter.initHttpServer(options);
  const app = adapter.getInstance<express.Express>();
  const server: Server = adapter.getHttpServer();
  const seen: Array<{ req: unknown; res: unknown }> = [];
  server.prependListener('request', (req, res) =>
    seen.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, app);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return { app, seen };
}

describe('messageClasses', () => {
  it("builds requests and responses whose prototypes are the Express app's, and still Node's classes", async () => {
    let body = '';
    const { app: served, seen } = await serve({}, async (base, app) => {
      app.post('/echo', (req, res) => {
        expect(req).toBeInstanceOf(IncomingMessage);
        expect(res).toBeInstanceOf(ServerResponse);
        req.setEncoding('utf8');
        req.on('data', (chunk: string) => (body += chunk));
        req.on('end', () =>
          res
            .status(201)
            .type('text/plain')
            .send(`got ${body} from ${req.get('x-probe')}`),
        );
      });
      const response = await fetch(`${base}/echo`, { method: 'POST', body: 'a=1', headers: { 'x-probe': 'yes' } });
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe('got a=1 from yes');
    });
    expect(seen).toHaveLength(1);
    expect(seen[0].req).toBe(served.request);
    expect(seen[0].res).toBe(served.response);
  });

  it("leaves the server to Nest when Nest's return503OnClosing needs its own", async () => {
    const { seen } = await serve({ return503OnClosing: true }, async (base, app) => {
      app.get('/', (_req, res) => res.send('ok'));
      expect(await (await fetch(base)).text()).toBe('ok');
    });
    expect(seen).toHaveLength(1);
    expect(seen[0].req).toBe(IncomingMessage.prototype);
    expect(seen[0].res).toBe(ServerResponse.prototype);
  });

  it("gives constructors that build objects with the app's prototypes", () => {
    const app = {
      request: Object.create(IncomingMessage.prototype),
      response: Object.create(ServerResponse.prototype),
    } as unknown as express.Express;
    const classes = messageClasses(app)!;
    expect(classes.IncomingMessage.prototype).toBe(app.request);
    expect(classes.ServerResponse.prototype).toBe(app.response);
  });
});
