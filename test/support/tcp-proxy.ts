import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Data from the server is dropped (its acknowledgement "lost"). */
  swallow: boolean;
}

/**
 * A TCP proxy between the application and a server (PostgreSQL), which a test can cut: every connection
 * destroyed and new ones refused (the listening socket closed, so connecting gets ECONNREFUSED), as when the
 * server or the network goes away, and later restored on the same port. `loseNextCommitAck()` lets the next
 * `COMMIT` reach the server but destroys the connection before its answer comes back: the transaction is
 * committed and the client does not know. `stall()` keeps the connections open but forwards nothing more (a
 * server gone without a word: a network partition, a paused machine), and refuses new ones.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Pair>();
  private commitTrap = false;
  private stalled = false;
  private port_ = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await proxy.listen(0);
    return proxy;
  }

  get port(): number {
    return this.port_;
  }

  /** Local ports of the proxy's connections to the server (pg_stat_activity.client_port). */
  get upstreamPorts(): number[] {
    return [...this.pairs].map((p) => p.upstream.localPort).filter((p): p is number => p !== undefined);
  }

  get connections(): number {
    return this.pairs.size;
  }

  /** Destroys every connection and refuses new ones until restore(). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    // Connections first: close() calls back only once every accepted connection has ended.
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const pair of this.pairs) this.destroy(pair);
    await closed;
  }

  /** Keeps every connection open but lets nothing through any more; new connections are refused. */
  stall(): void {
    this.stalled = true;
  }

  /** Accepts connections again, on the same port (after a stall, the stalled connections end: their streams are cut). */
  async restore(): Promise<void> {
    if (this.stalled) {
      this.stalled = false;
      for (const pair of this.pairs) this.destroy(pair);
    }
    if (!this.server) await this.listen(this.port_);
  }

  loseNextCommitAck(): void {
    this.commitTrap = true;
  }

  get commitAckPending(): boolean {
    return this.commitTrap;
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => this.accept(client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.removeListener('error', reject);
        this.server = server;
        this.port_ = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    if (!this.server || this.stalled) {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    const pair: Pair = { client, upstream, swallow: false };
    this.pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (this.stalled) return;
      if (this.commitTrap && chunk.includes('COMMIT')) {
        this.commitTrap = false;
        pair.swallow = true;
        upstream.write(chunk);
        // Long enough for the server to commit; the answer is swallowed meanwhile.
        setTimeout(() => this.destroy(pair), 200);
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!pair.swallow && !this.stalled) client.write(chunk);
    });
    const end = () => this.destroy(pair);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }

  private destroy(pair: Pair): void {
    this.pairs.delete(pair);
    pair.client.destroy();
    pair.upstream.destroy();
  }
}
