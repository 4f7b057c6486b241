// The HTTP server of the gateway: node:http with the header limit Node enforces itself, Hono's request
// listener, and problem documents for what fails before the app runs (a request Node's parser refuses,
// a Host or request target no URL can be built from).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { renderProblem } from '../problem/render.ts';
import { badRequest } from '../problem/types.ts';
import { answerClientErrors } from './client-errors.ts';

type Fetch = Parameters<typeof getRequestListener>[0];

export interface ListenOptions {
  port: number;
  hostname?: string;
  maxHeaderBytes: number;
  /** The model's `api.docsUrl`, for the problems' `type`. */
  docsUrl: string;
}

export function listen(fetch: Fetch, o: ListenOptions, onListening?: (address: AddressInfo) => void): Server {
  const listener = getRequestListener(fetch, {
    ...(o.hostname ? { hostname: o.hostname } : {}),
    errorHandler: () => renderProblem(badRequest('The Host header or the request target is not valid.'), { docsUrl: o.docsUrl, instance: '' }),
  });
  const server = createServer({ maxHeaderSize: o.maxHeaderBytes }, listener);
  answerClientErrors(server, o.docsUrl, o.maxHeaderBytes);
  server.listen(o.port, o.hostname, () => onListening?.(server.address() as AddressInfo));
  return server;
}
