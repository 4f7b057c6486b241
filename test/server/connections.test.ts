// MAX_CONNECTIONS_PER_CLIENT on the gateway's HTTP server: past the cap a connection's request is answered 429
// and the connection closed, other addresses are served meanwhile, and trusted proxies are not counted; and
// MAX_CONNECTIONS, the cap on all of them below the open-file limit: 503 past it, answered, not reset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { listen } from '../../server/http/listen.ts';
import { MAX_PIPELINED } from '../../server/http/connections.ts';
import { connectionsWithin, DEFAULT_LIMITS, limitsFromEnv, openFileLimit, type RequestLimits } from '../../server/request/limits.ts';
import { compileTrust, trustedPeer } from '../../server/request/caller.ts';

const DOCS = 'https://docs.example.com';
const MAX = 3;
let reached = 0;

async function serve(trusted?: (address: string) => boolean, delayMs = 0, limits: Partial<RequestLimits> = {}): Promise<{ server: Server; port: number }> {
  const fetch = async () => {
    reached++;
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    return new Response('ok');
  };
  const server = await new Promise<Server>((resolve) => {
    const s = listen(fetch, { port: 0, hostname: '127.0.0.1', docsUrl: DOCS, limits: { ...DEFAULT_LIMITS, maxConnectionsPerClient: MAX, ...limits }, ...(trusted ? { trusted } : {}) }, () => resolve(s));
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
  let onClose = () => {};
  const done = new Promise<void>((resolve) => {
    const check = () => {
      const [head, body = ''] = data.split('\r\n\r\n');
      const length = Number(/content-length: *(\d+)/i.exec(head ?? '')?.[1] ?? -1);
      if (closed || (length >= 0 && Buffer.byteLength(body) >= length)) resolve();
    };
    socket.on('data', (d) => { data += d.toString('utf8'); check(); });
    onClose = () => { closed = true; check(); };
    socket.once('close', onClose);
  });
  socket.write('GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await done;
  await new Promise((r) => setTimeout(r, 20)); // a close that follows the answer
  socket.removeAllListeners('data');
  socket.removeListener('close', onClose);
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

test('past MAX_CONNECTIONS in all (each address within its own cap): 503 with Retry-After, answered and closed, not reset; served again once one closes', async () => {
  const { server, port } = await serve(undefined, 0, { maxConnections: 3 });
  const accepted: Socket[] = []; // the server's side of each connection, in the order it took them
  server.on('connection', (s: Socket) => accepted.push(s));
  const taken = async (n: number) => { while (accepted.length < n) await once(server, 'connection'); };
  // Three slow clients from three addresses: connected, a request line begun, no headers ever finished.
  const held = [];
  for (const from of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) {
    const s = await open(port, from);
    s.write('GET /x HTTP/1.1\r\nHost: x\r\n');
    held.push(s);
  }
  await taken(3);
  reached = 0;
  const late = await open(port, '127.0.0.4');
  const answered = get(late); // its request goes at once: a connection past the cap is kept REFUSED_LINGER_MS for it
  await taken(4);
  // Past the cap by more than an eighth of it (here one), a connection is closed at once: it holds no file.
  const flood = await open(port, '127.0.0.5');
  let flooded = '';
  flood.on('data', (d) => { flooded += d.toString('utf8'); });
  flood.on('error', () => {});
  await taken(5);
  if (!flood.destroyed) await once(flood, 'close');
  assert.is(flooded, '', 'closed unanswered');
  const refused = await answered;
  assert.is(refused.status, 503);
  assert.match(refused.head, /content-type: application\/problem\+json/i);
  assert.match(refused.head, /retry-after: 1/i);
  assert.match(refused.head, /connection: close/i);
  if (!late.destroyed) await once(late, 'close'); // the server closes it after the answer
  const problem = JSON.parse(refused.body);
  assert.is(problem.code, 'E_UNAVAILABLE');
  assert.is(problem.instance, '/x');
  assert.match(problem.detail, /\(3, MAX_CONNECTIONS\)/);
  assert.is(reached, 0, 'the refused request never reached the app');
  // One slow client leaves: once the server has seen it close, a new client is served.
  const leaving = accepted[0]!;
  held.shift()!.destroy();
  if (!leaving.destroyed) await once(leaving, 'close');
  const next = await open(port, '127.0.0.6');
  assert.is((await get(next)).status, 200);
  await stop(server, [...held, next]);
});

test('MAX_CONNECTIONS defaults to three quarters of the open-file limit, and may not reach it', () => {
  assert.is(openFileLimit(() => 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n'), 1024);
  assert.is(openFileLimit(() => { throw new Error('ENOENT'); }), undefined);
  assert.equal([1024, 65536, undefined, 1].map(connectionsWithin), [768, 49152, 768, 1]);
  const files = openFileLimit();
  if (files === undefined) return; // not Linux: nothing to check against
  assert.is(DEFAULT_LIMITS.maxConnections, connectionsWithin(files));
  assert.is(limitsFromEnv({}).maxConnections, connectionsWithin(files));
  assert.is(limitsFromEnv({ MAX_CONNECTIONS: String(files - 1) }).maxConnections, files - 1);
  assert.throws(() => limitsFromEnv({ MAX_CONNECTIONS: String(files) }), new RegExp(`MAX_CONNECTIONS \\(${files}\\) must be below the open-file limit \\(${files}\\)`));
});

test.run();
