// The cap on connections one client address holds open at once (MAX_CONNECTIONS_PER_CLIENT): a connection past
// it is answered 429 on its first request and closed, so one client cannot take every socket the gateway has.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { problemBody } from '../problem/render.ts';
import { ApiError } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

/** How long a connection past the cap is kept for its first request (to answer it) before it is closed. */
export const REFUSED_LINGER_MS = 1_000;

export interface CapOptions {
  /** Connections one address may hold open. */
  max: number;
  /** Addresses not counted: proxies the gateway trusts (TRUST_PROXY), whose connections carry many clients. */
  exempt: (address: string) => boolean;
  docsUrl: string;
}

export class ConnectionCap {
  readonly #open = new Map<string, number>();
  readonly #refused = new WeakSet<Socket>();
  constructor(private readonly o: CapOptions) {}

  /** Counts the server's connections from now on (before Node's HTTP parser sees them). */
  watch(server: Server): void {
    server.prependListener('connection', (socket: Socket) => this.#admit(socket));
  }

  /** Connections open from `address` now (for tests and metrics). */
  open(address: string): number {
    return this.#open.get(address) ?? 0;
  }

  /** Answers a request on a connection past the cap (true), or leaves it to the app (false). */
  refuse(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.#refused.has(req.socket)) return false;
    const problem = new ApiError('tooManyRequests', `Too many connections from this address: at most ${this.o.max} at once `
      + `(${LIMITS.maxConnectionsPerClient.env}). Send requests on the connections already open, or close some.`);
    const body = JSON.stringify(problemBody(problem, { docsUrl: this.o.docsUrl, instance: (req.url ?? '').split('?')[0]! }));
    res.shouldKeepAlive = false;
    res.writeHead(problem.status, { 'Content-Type': 'application/problem+json', 'Retry-After': '1', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  }

  #admit(socket: Socket): void {
    const address = socket.remoteAddress;
    if (!address || this.o.exempt(address)) return;
    const open = this.open(address) + 1;
    if (open > this.o.max) {
      this.#refused.add(socket);
      setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
      return;
    }
    this.#open.set(address, open);
    socket.once('close', () => {
      const left = this.open(address) - 1;
      if (left > 0) this.#open.set(address, left);
      else this.#open.delete(address);
    });
  }
}
