import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProfileRecord } from '../storage/profile-record.js';
import { ReplayFailure, RequestReplayer } from './request-replayer.js';

const record = {
  token: 'abc123',
  method: 'GET',
  url: 'http://shop.test/products?q=tea&token=******',
  data: {
    request: {
      headers: {
        host: 'shop.test',
        accept: 'text/html',
        authorization: '******',
        connection: 'keep-alive',
        'content-length': '0',
      },
    },
  },
} as unknown as ProfileRecord;

describe('RequestReplayer', () => {
  let server: Server;
  let seen: IncomingMessage | undefined;
  let answer: (req: IncomingMessage, res: import('node:http').ServerResponse) => void;
  const local = () => ({ address: '127.0.0.1', port: (server.address() as AddressInfo).port });

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen = req;
      answer(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the recorded path, query and headers (but masked ones and the connection's), and returns the new token", async () => {
    answer = (_req, res) => res.writeHead(200, { 'X-Debug-Token': 'def456' }).end('ok');
    await expect(new RequestReplayer().replay(record, local())).resolves.toBe('def456');
    expect([seen!.method, seen!.url]).toEqual(['GET', '/products?q=tea&token=******']);
    expect(seen!.headers).toMatchObject({ host: 'shop.test', accept: 'text/html', 'x-replayed-from': 'abc123' });
    expect(seen!.headers.authorization).toBeUndefined();
  });

  it('fails with a 502 when the answer carries no profile, and a 504 when there is no answer in time', async () => {
    answer = (_req, res) => res.writeHead(404).end();
    await expect(new RequestReplayer().replay(record, local())).rejects.toEqual(
      new ReplayFailure(
        'The replayed request answered 404 without a profile (X-Debug-Token): its path or host may be excluded from profiling.',
      ),
    );
    answer = () => undefined;
    const slow = new RequestReplayer().replay(record, local(), 100);
    await expect(slow).rejects.toMatchObject({
      status: 504,
      message: 'The replayed request did not answer within 0.1 s.',
    });
    const closed = new RequestReplayer().replay(record, { address: '127.0.0.1', port: 1 });
    await expect(closed).rejects.toMatchObject({
      status: 502,
      message: expect.stringMatching(/^The replay could not be sent: connect ECONNREFUSED/),
    });
  });
});
