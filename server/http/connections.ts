// The caps on connections: all of them at once (MAX_CONNECTIONS, below the open-file limit: one past it is answered 503
// on its first request and closed, not reset for want of a file), those of one client address (MAX_CONNECTIONS_PER_CLIENT:
// 429, so one client cannot take every socket the gateway has), and requests one connection has in flight (HTTP pipelining: 429).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { problemText } from '../problem/render.ts';
import { ApiError } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

/** How long a connection past a cap is kept for its first request (to answer it) before it is closed. */
export const REFUSED_LINGER_MS = 1_000;
/**
 * Connections past MAX_CONNECTIONS kept to be answered at once, as a share of it: each holds a file for up to
 * REFUSED_LINGER_MS, so past this many more (a flood) they are closed unanswered, and the files stay within the limit.
 */
export const ANSWERED_PAST_CAP = 1 / 8;

/**
 * Requests one connection may have in flight at once: HTTP/1.1 pipelining sends the next before the answer to the
 * one before, and a client writing thousands at once on each of its sockets held the gateway for seconds. Past it,
 * 429 and the connection closed (the requests behind are dropped unanswered, as a closed connection's are).
 */
export const MAX_PIPELINED = 16;

export interface CapOptions {
  /** Connections one address may hold open. */
  max: number;
  /** Connections the server holds open at once, from every address, trusted proxies too (MAX_CONNECTIONS). */
  total: number;
  /** Addresses not counted: proxies the gateway trusts (TRUST_PROXY), whose connections carry many clients. */
  exempt: (address: string) => boolean;
  docsUrl: string;
}

export class ConnectionCap {
  readonly #open = new Map<string, number>();
  /** Connections past a cap, by the cap: `client` (MAX_CONNECTIONS_PER_CLIENT) or `total` (MAX_CONNECTIONS). */
  readonly #refused = new WeakMap<Socket, 'client' | 'total'>();
  /** Connections open within MAX_CONNECTIONS, and those past it waiting for their answer. */
  #total = 0;
  #pastTotal = 0;
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

  /** Connections open now within MAX_CONNECTIONS (those past it, being answered, aside). */
  get total(): number {
    return this.#total;
  }

  /** Answers a request on a connection past the cap, or past MAX_PIPELINED in flight on it (true), or leaves it to the app (false). */
  refuse(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    const refused = this.#refused.get(socket);
    if (refused === 'total') {
      return this.#answer(req, res, new ApiError('unavailable', `The gateway holds as many connections as it may (${this.o.total}, `
        + `${LIMITS.maxConnections.env}); retry in a moment, or send requests on a connection already open.`));
    }
    if (refused === 'client') {
      return this.#answer(req, res, new ApiError('tooManyRequests', `Too many connections from this address: at most ${this.o.max} at once `
        + `(${LIMITS.maxConnectionsPerClient.env}). Send requests on the connections already open, or close some.`));
    }
    const inFlight = (this.#inFlight.get(socket) ?? 0) + 1;
    if (inFlight > MAX_PIPELINED) {
      return this.#answer(req, res, new ApiError('tooManyRequests', `Too many requests in flight on one connection: at most ${MAX_PIPELINED} (HTTP pipelining). `
        + 'Send the next when an answer has come, or on another connection.'));
    }
    this.#inFlight.set(socket, inFlight);
    res.once('close', () => this.#inFlight.set(socket, (this.#inFlight.get(socket) ?? 1) - 1));
    return false;
  }

  /** The problem (429 or 503) with Retry-After, and the connection closed after it. */
  #answer(req: IncomingMessage, res: ServerResponse, problem: ApiError): true {
    const { text: body, contentType } = problemText(problem, { docsUrl: this.o.docsUrl, instance: (req.url ?? '').split('?')[0]! });
    res.shouldKeepAlive = false;
    res.writeHead(problem.status, { 'Content-Type': contentType, 'Retry-After': '1', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  }

  #admit(socket: Socket): void {
    if (this.#total >= this.o.total) {
      if (this.#pastTotal >= Math.ceil(this.o.total * ANSWERED_PAST_CAP)) {
        socket.destroy();
        return;
      }
      this.#pastTotal++;
      socket.once('close', () => this.#pastTotal--);
      this.#refuse(socket, 'total');
      return;
    }
    this.#total++;
    socket.once('close', () => this.#total--);
    const address = socket.remoteAddress;
    if (!address || this.o.exempt(address)) return;
    const open = this.open(address) + 1;
    if (open > this.o.max) {
      this.#refuse(socket, 'client');
      return;
    }
    this.#open.set(address, open);
    socket.once('close', () => {
      const left = this.open(address) - 1;
      if (left > 0) this.#open.set(address, left);
      else this.#open.delete(address);
    });
  }

  /** Keeps a connection past a cap for its first request, to answer it, and closes it after REFUSED_LINGER_MS at most. */
  #refuse(socket: Socket, cap: 'client' | 'total'): void {
    this.#refused.set(socket, cap);
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  }
}
