// The cap on connections one client address holds open at once (MAX_CONNECTIONS_PER_CLIENT): a connection past
// it is answered 429 on its first request and closed, so one client cannot take every socket the gateway has;
// and on requests one connection has in flight (HTTP pipelining), past which it is answered 429 and closed.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { problemBody } from '../problem/render.ts';
import { ApiError } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

/** How long a connection past the cap is kept for its first request (to answer it) before it is closed. */
export const REFUSED_LINGER_MS = 1_000;

/**
 * Requests one connection may have in flight at once: HTTP/1.1 pipelining sends the next before the answer to the
 * one before, and a client writing thousands at once on each of its sockets held the gateway for seconds. Past it,
 * 429 and the connection closed (the requests behind are dropped unanswered, as a closed connection's are).
 */
export const MAX_PIPELINED = 16;

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
  readonly #inFlight = new WeakMap<Socket, number>();
  constructor(private readonly o: CapOptions) {}

  /** Counts the server's connections from now on (before Node's HTTP parser sees them). */
  watch(server: Server): void {
    server.prependListener('connection', (socket: Socket) => this.#admit(socket));
  }

  /** Connections open from `address` now (for tests and metrics). */
  open(address: string): number {
    return this.#open.get(address) ?? 0;
  }

  /** Answers a request on a connection past the cap, or past MAX_PIPELINED in flight on it (true), or leaves it to the app (false). */
  refuse(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    if (this.#refused.has(socket)) {
      return this.#answer(req, res, `Too many connections from this address: at most ${this.o.max} at once `
        + `(${LIMITS.maxConnectionsPerClient.env}). Send requests on the connections already open, or close some.`);
    }
    const inFlight = (this.#inFlight.get(socket) ?? 0) + 1;
    if (inFlight > MAX_PIPELINED) {
      return this.#answer(req, res, `Too many requests in flight on one connection: at most ${MAX_PIPELINED} (HTTP pipelining). `
        + 'Send the next when an answer has come, or on another connection.');
    }
    this.#inFlight.set(socket, inFlight);
    res.once('close', () => this.#inFlight.set(socket, (this.#inFlight.get(socket) ?? 1) - 1));
    return false;
  }

  /** 429 with Retry-After, and the connection closed after it. */
  #answer(req: IncomingMessage, res: ServerResponse, detail: string): true {
    const problem = new ApiError('tooManyRequests', detail);
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
