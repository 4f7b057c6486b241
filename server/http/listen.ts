// The HTTP server of the gateway: node:http with the header limit Node enforces itself, Hono's request
// listener, and problem documents for what fails before the app runs (a request Node's parser refuses,
// a Host or request target no URL can be built from).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { renderProblem } from '../problem/render.ts';
import { badRequest } from '../problem/types.ts';
import { answerClientErrors } from './client-errors.ts';
import type { RequestLimits } from '../request/limits.ts';

type Fetch = Parameters<typeof getRequestListener>[0];

/** The limits the HTTP server itself enforces, before the app sees a request. */
export type ServerLimits = Pick<RequestLimits, 'maxHeaderBytes' | 'headersTimeoutMs' | 'requestTimeoutMs'>;

export interface ListenOptions {
  port: number;
  hostname?: string;
  limits: ServerLimits;
  /** The model's `api.docsUrl`, for the problems' `type`. */
  docsUrl: string;
}

export function listen(fetch: Fetch, o: ListenOptions, onListening?: (address: AddressInfo) => void): Server {
  const listener = getRequestListener(fetch, {
    ...(o.hostname ? { hostname: o.hostname } : {}),
    errorHandler: () => renderProblem(badRequest('The Host header or the request target is not valid.'), { docsUrl: o.docsUrl, instance: '' }),
  });
  const { maxHeaderBytes, headersTimeoutMs, requestTimeoutMs } = o.limits;
  const server = createServer({
    maxHeaderSize: maxHeaderBytes, headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs,
    // How often Node looks for requests past their time (its default, 30 s, would let them run that much longer).
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
  }, listener);
  answerClientErrors(server, o.docsUrl, o.limits);
  server.listen(o.port, o.hostname, () => onListening?.(server.address() as AddressInfo));
  return server;
}
