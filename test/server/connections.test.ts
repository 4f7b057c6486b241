// MAX_CONNECTIONS_PER_CLIENT on the gateway's HTTP server: past the cap a connection's request is answered 429
// and the connection closed, other addresses are served meanwhile, and trusted proxies are not counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { listen } from '../../server/http/listen.ts';
import { MAX_PIPELINED } from '../../server/http/connections.ts';
import { DEFAULT_LIMITS } from '../../server/request/limits.ts';
import { compileTrust, trustedPeer } from '../../server/request/caller.ts';

const DOCS = 'https://docs.example.com';
const MAX = 3;
let reached = 0;

async function serve(trusted?: (address: string) => boolean, delayMs = 0): Promise<{ server: Server; port: number }> {
  const fetch = async () => {
    reached++;
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    return new Response('ok');
  };
  const server = await new Promise<Server>((resolve) => {
    const s = listen(fetch, { port: 0, hostname: '127.0.0.1', docsUrl: DOCS, limits: { ...DEFAULT_LIMITS, maxConnectionsPerClient: MAX }, ...(trusted ? { trusted } : {}) }, () => resolve(s));
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** A kept-alive connection from `from` (a loopback address of this machine). */
async function open(port: number, from = '127.0.0.1'): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  await once(socket, 'connect');
  return socket;
}

/** Sends one GET on the connection and resolves with what came back before the answer was complete or the close. */
async function get(socket: Socket): Promise<{ status: number; head: string; body: string; closed: boolean }> {
  if (socket.destroyed || socket.readableEnded) return { status: 0, head: '', body: '', closed: true };
  let data = '';
  let closed = false;
  const done = new Promise<void>((resolve) => {
    const check = () => {
      const [head, body = ''] = data.split('\r\n\r\n');
      const length = Number(/content-length: *(\d+)/i.exec(head ?? '')?.[1] ?? -1);
      if (closed || (length >= 0 && Buffer.byteLength(body) >= length)) resolve();
    };
    socket.on('data', (d) => { data += d.toString('utf8'); check(); });
    socket.once('close', () => { closed = true; check(); });
  });
  socket.write('GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await done;
  await new Promise((r) => setTimeout(r, 20)); // a close that follows the answer
  socket.removeAllListeners('data');
  const [head = '', body = ''] = data.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), head, body, closed: closed || socket.destroyed || socket.readableEnded };
}

const stop = (server: Server, sockets: Socket[]) => {
  for (const s of sockets) s.destroy();
  return new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
};

test('past MAX_CONNECTIONS_PER_CLIENT from one address: 429 with Retry-After, closed, the app never reached', async () => {
  const { server, port } = await serve();
  const kept = [await open(port), await open(port), await open(port)];
  for (const s of kept) assert.is((await get(s)).status, 200);
  reached = 0;
  const extra = await open(port);
  const refused = await get(extra);
  assert.is(refused.status, 429);
  assert.match(refused.head, /content-type: application\/problem\+json/i);
  assert.match(refused.head, /retry-after: 1/i);
  assert.match(refused.head, /connection: close/i);
  assert.ok(refused.closed, 'the connection is closed after the answer');
  const problem = JSON.parse(refused.body);
  assert.is(problem.code, 'E_TOO_MANY_REQUESTS');
  assert.is(problem.status, 429);
  assert.is(problem.instance, '/x');
  assert.match(problem.detail, /MAX_CONNECTIONS_PER_CLIENT/);
  assert.is(reached, 0, 'the refused request never reached the app');
  // The ones within the cap are kept alive and still work, and another address is served meanwhile.
  assert.is((await get(kept[0]!)).status, 200);
  const other = await open(port, '127.0.0.2');
  assert.is((await get(other)).status, 200);
  // One closed: a new connection from the first address is served.
  kept.pop()!.destroy();
  await new Promise((r) => setTimeout(r, 50));
  const again = await open(port);
  assert.is((await get(again)).status, 200);
  await stop(server, [...kept, other, again, extra]);
});

test('a connection past the cap that sends nothing is closed within a second or so, not held', async () => {
  const { server, port } = await serve();
  const kept = await Promise.all([open(port), open(port), open(port)]);
  const idle = await open(port);
  const started = Date.now();
  await once(idle, 'close');
  assert.ok(Date.now() - started < 5_000, `closed after ${Date.now() - started} ms`);
  const within = await open(port, '127.0.0.3');
  assert.is((await get(within)).status, 200);
  await stop(server, [...kept, within]);
});

test('a trusted proxy (TRUST_PROXY) is not capped: its connections carry many clients', async () => {
  const { server, port } = await serve(trustedPeer(compileTrust('127.0.0.1')));
  const sockets = await Promise.all(Array.from({ length: MAX + 2 }, () => open(port)));
  for (const s of sockets) assert.is((await get(s)).status, 200);
  // Another peer is still capped.
  const others = await Promise.all(Array.from({ length: MAX + 1 }, () => open(port, '127.0.0.2')));
  const statuses = [];
  for (const s of others) statuses.push((await get(s)).status);
  assert.equal(statuses, [200, 200, 200, 429]);
  await stop(server, [...sockets, ...others]);
});

test(`past ${MAX_PIPELINED} pipelined requests in flight on one connection: 429, closed, the rest dropped; the answers before it come`, async () => {
  const { server, port } = await serve(undefined, 100);
  reached = 0;
  const socket = await open(port);
  let data = '';
  socket.on('data', (d) => { data += d.toString('utf8'); });
  const closed = once(socket, 'close');
  socket.write('GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n'.repeat(MAX_PIPELINED * 4));
  await closed;
  const statuses = [...data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
  assert.equal(statuses.slice(0, MAX_PIPELINED), Array(MAX_PIPELINED).fill(200), 'the first ones answered, in order');
  assert.is(statuses[MAX_PIPELINED], 429);
  assert.match(data, 'Too many requests in flight on one connection');
  assert.ok(reached <= MAX_PIPELINED, `the app saw ${reached} of them`);
  // Sent one after the other, any number go through on one connection.
  const next = await open(port);
  for (let i = 0; i < MAX_PIPELINED + 4; i++) assert.is((await get(next)).status, 200);
  await stop(server, [socket, next]);
});

test.run();
