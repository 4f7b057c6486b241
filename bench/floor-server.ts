// The HTTP floors of the benchmark: a server that turns `GET /posts/<id>` and `GET /posts?project_id=<p>&per_page=<n>`
// into the same api.dispatch call the gateway makes, and answers its text. No token, routing table, plan, log or
// metrics: what HTTP and the call cost on this machine, on bare node:http (`node`), or through the gateway's own
// HTTP parts, Hono on @hono/node-server (`hono`).
// `tsx bench/floor-server.ts <database url> <port> [node|hono]`; prints "Serving " once it listens.
import { createServer, type RequestListener } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import postgres from 'postgres';
import { BENCH_CLAIMS } from './seed.ts';

const [url, port, kind = 'node'] = process.argv.slice(2);
const sql = postgres(url!, { max: 10, onnotice: () => {} });
const CLAIMS = JSON.stringify(BENCH_CLAIMS);
const POSTS = '/api/publishing/v1/posts';

/** The call of a request, or undefined when the floor does not serve its path. */
function callOf(target: string): [string, Record<string, unknown>] | undefined {
  const [path, query = ''] = target.split('?');
  if (path!.startsWith(`${POSTS}/`)) return ['posts_read', { id: decodeURIComponent(path!.slice(POSTS.length + 1)), answer_refusal: true }];
  const q = new URLSearchParams(query);
  if (path !== POSTS || !q.has('project_id')) return undefined;
  return ['posts_list', { filter: { field: 'project_id', op: 'eq', value: q.get('project_id') }, page: 1, per_page: Number(q.get('per_page') ?? 25), sort: [] }];
}

/** The call's answer as the function wrote it (JSON text). */
async function answer(call: [string, Record<string, unknown>]): Promise<string> {
  const [row] = await sql`select api.dispatch('authenticated', ${CLAIMS}::text::jsonb, '127.0.0.1', ${call[0]}, ${JSON.stringify(call[1])}::text::jsonb)::text as r`;
  return row!.r as string;
}

const bare: RequestListener = async (req, res) => {
  const call = callOf(req.url ?? '');
  if (!call) return void res.writeHead(404).end();
  try {
    const body = await answer(call);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
};

/** The same through Hono's router and node adapter: one route, its text answered with a plain header object. */
function hono(): RequestListener {
  const app = new Hono();
  app.get(`${POSTS}/*`, async (c) => {
    const call = callOf(c.req.url.slice(c.req.url.indexOf('/', 'http://'.length)));
    return call ? c.body(await answer(call), 200, { 'Content-Type': 'application/json' }) : c.body(null, 404);
  });
  return getRequestListener(app.fetch);
}

createServer(kind === 'hono' ? hono() : bare).listen(Number(port), '127.0.0.1', () => console.log(`Serving the ${kind} floor on ${port}`));
process.on('SIGTERM', () => void sql.end({ timeout: 1 }).then(() => process.exit(0)));
