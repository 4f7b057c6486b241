// The HTTP server of the gateway: node:http with the header limit Node enforces itself, Hono's request
// listener, the caps on connections (in all and per client), and problem documents for what fails before the app runs (a
// request Node's parser refuses, a Host or request target no URL can be built from).
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { renderProblem } from '../problem/render.ts';
import { badRequest } from '../problem/types.ts';
import { answerClientErrors, answerExpectations, type ServerLimits } from './client-errors.ts';
import { ConnectionCap } from './connections.ts';

type Fetch = Parameters<typeof getRequestListener>[0];


export interface ListenOptions {
  port: number;
  /** The address to listen on (default: every interface); never taken for a request's Host. */
  hostname?: string;
  limits: ServerLimits;
  /** The model's `api.docsUrl`, for the problems' `type`. */
  docsUrl: string;
  /** Peer addresses whose connections are not capped: the proxies TRUST_PROXY names (default: none). */
  trusted?: (address: string) => boolean;
  /** The largest body any route takes (default MAX_BODY_BYTES; a local-driver upload's cap may be larger). */
  largestBody?: number;
}

/**
 * A response sent before its request's body was all received (a 413 on Content-Length, a 401 before an upload's
 * bytes) says `Connection: close`: the rest of the body is not read for long (the adapter drains it 500 ms,
 * then closes), so a client must not send its next request on that connection.
 */
class ClosingResponse extends ServerResponse<IncomingMessage> {}
const writeHead = ServerResponse.prototype.writeHead;
ClosingResponse.prototype.writeHead = function (this: ClosingResponse, ...args: unknown[]) {
  // A request without a body is complete once its headers are, though Node marks it so only after the listener ran.
  const { headers } = this.req;
  const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
  if (hasBody && !this.req.complete) this.shouldKeepAlive = false;
  return Reflect.apply(writeHead, this, args) as ClosingResponse;
} as ServerResponse['writeHead'];

export function listen(fetch: Fetch, o: ListenOptions, onListening?: (address: AddressInfo) => void): Server {
  // The address listened on is no Host: a request without one is refused alike wherever the gateway listens.
  const listener = getRequestListener(fetch, {
    errorHandler: () => renderProblem(badRequest('The Host header or the request target is not valid.'), { docsUrl: o.docsUrl, instance: '' }),
  });
  const { maxHeaderBytes, headersTimeoutMs, requestTimeoutMs, maxConnectionsPerClient, maxConnections } = o.limits;
  const cap = new ConnectionCap({ max: maxConnectionsPerClient, total: maxConnections, exempt: o.trusted ?? (() => false), docsUrl: o.docsUrl });
  const server = createServer({
    ServerResponse: ClosingResponse,
    maxHeaderSize: maxHeaderBytes, headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs,
    // An HTTP/1.1 request without Host goes on to the adapter, which answers a problem document (no URL can be built);
    // Node's own check would answer an empty 400.
    requireHostHeader: false,
    // How often Node looks for requests past their time (its default, 30 s, would let them run that much longer).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
  }, (req, res) => {
    if (!cap.refuse(req, res)) void listener(req, res);
  });
  cap.watch(server);
  answerClientErrors(server, o.docsUrl, o.limits);
  answerExpectations(server, o.docsUrl, o.largestBody ?? o.limits.maxBodyBytes);
  server.listen(o.port, o.hostname, () => onListening?.(server.address() as AddressInfo));
  return server;
}
