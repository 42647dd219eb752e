import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProfileRecord } from '../storage/profile-record.js';
import { ReplayFailure, replayTarget, RequestReplayer } from './request-replayer.js';

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

  it('leaves out a recorded header Node would refuse to send, and refuses a Host with a line break', async () => {
    answer = (_req, res) => res.writeHead(200, { 'X-Debug-Token': 'def456' }).end('ok');
    const planted = {
      ...record,
      data: {
        request: { headers: { host: 'shop.test', 'x-note': 'a\r\nx-injected: 1', 'bad name': 'v', accept: '*/*' } },
      },
    } as unknown as typeof record;
    await expect(new RequestReplayer().replay(planted, local())).resolves.toBe('def456');
    expect(seen!.headers['x-injected']).toBeUndefined();
    expect(seen!.headers['x-note']).toBeUndefined();
    expect(seen!.headers.accept).toBe('*/*');
    const broken = { ...record, data: { request: { headers: { host: 'shop.test\r\nx-injected: 1' } } } };
    await expect(new RequestReplayer().replay(broken as unknown as typeof record, local())).rejects.toEqual(
      new ReplayFailure(
        'The recorded Host "shop.test\\r\\nx-injected: 1" is not a valid host name and port, so the request cannot be sent again.',
        422,
      ),
    );
  });
});

describe('replayTarget', () => {
  it("takes the recorded Host field, else the URL's, and the path and query escaped", () => {
    expect(replayTarget('http://shop.test/a b?q=x y', undefined)).toEqual({
      host: 'shop.test',
      path: '/a%20b?q=x%20y',
    });
    expect(replayTarget('http://127.0.0.1:3000', 'shop.test:8080')).toEqual({ host: 'shop.test:8080', path: '/' });
    expect(replayTarget('https://[::1]:8443/x#frag', undefined)).toEqual({ host: '[::1]:8443', path: '/x' });
    expect(replayTarget('http:///orders', undefined)).toEqual({ host: '', path: '/orders' });
  });

  it.each(['a b', '[::1', 'a:99999', '@evil', 'shop.test@evil', 'a\u0000b', 'a\u007fb', 'ünï.test', 'a:-1'])(
    'refuses the Host %j with a 422 that names it',
    (host) => {
      expect(() => replayTarget(`http://${host}/`, undefined)).toThrow(
        new ReplayFailure(
          `The recorded Host ${JSON.stringify(host)} is not a valid host name and port, so the request cannot be sent again.`,
          422,
        ),
      );
      expect(() => replayTarget('http://shop.test/', host)).toThrow(ReplayFailure);
    },
  );

  it('refuses a URL that is not absolute', () => {
    expect(() => replayTarget('/products', undefined)).toThrow(
      new ReplayFailure('The recorded URL "/products" is not an absolute URL.', 422),
    );
  });
});
