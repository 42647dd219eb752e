import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Another service the application calls (a carrier, a payment provider, a collector): a bare HTTP server. */
export interface StubService {
  server: Server;
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  base: string;
  port: number;
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1 (a free port, or `port`); `close()` ends its open connections too. */
export async function startStubService(handler: RequestListener, port = 0): Promise<StubService> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    base: `http://127.0.0.1:${bound}`,
    port: bound,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
