// A webhook receiver for tests: a real node:http server on a free port that keeps every request (headers, body) and
// answers as the test says (a status, or hold the request open); it can go down and come back on the same port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** The answer, for a request the receiver holds (answer: 'hold'). */
  res: ServerResponse;
}

/** What to answer a request: an HTTP status, or 'hold' (no answer until the test ends it). */
export type Answer = number | 'hold';

export class Receiver {
  readonly received: Received[] = [];
  answer: (r: Received) => Answer = () => 200;
  #server: Server | undefined;
  #port = 0;
  #waiters: Array<{ until: () => boolean; resolve: () => void }> = [];

  get url(): string { return `http://127.0.0.1:${this.#port}/hook`; }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), res };
        this.received.push(r);
        const answer = this.answer(r);
        if (answer !== 'hold') res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
        this.#check();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
    return this;
  }

  /** Stops listening and drops every connection: a POST now meets a refused connection. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `until()` holds, checked at each request (and now). */
  waitFor(until: () => boolean): Promise<void> {
    if (until()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ until, resolve }));
  }

  /** The requests whose payload names this record key. */
  bodiesOf(key: string): any[] {
    return this.received.map((r) => JSON.parse(r.body)).filter((p) => p.key === key);
  }

  #check(): void {
    this.#waiters = this.#waiters.filter((w) => (w.until() ? (w.resolve(), false) : true));
  }
}
