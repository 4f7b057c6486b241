// The HTTP floor of the benchmark: a bare node:http server that turns `GET /posts/<id>` and `GET
// /posts?project_id=<p>&per_page=<n>` into the same api.dispatch call the gateway makes, and answers its text.
// No token, routing table, plan, log or metrics: what HTTP in Node and the call cost on this machine.
// `tsx bench/floor-server.ts <database url> <port>`; prints "Serving " once it listens.
import { createServer } from 'node:http';
import postgres from 'postgres';
import { BENCH_CLAIMS } from './seed.ts';

const [url, port] = process.argv.slice(2);
const sql = postgres(url!, { max: 10, onnotice: () => {} });
const CLAIMS = JSON.stringify(BENCH_CLAIMS);
const POSTS = '/api/publishing/v1/posts';

/** The call of a request, or undefined when the floor does not serve its path. */
function callOf(target: string): [string, Record<string, unknown>] | undefined {
  const [path, query = ''] = target.split('?');
  if (path!.startsWith(`${POSTS}/`)) return ['posts_read', { id: decodeURIComponent(path!.slice(POSTS.length + 1)) }];
  const q = new URLSearchParams(query);
  if (path !== POSTS || !q.has('project_id')) return undefined;
  return ['posts_list', { filter: { field: 'project_id', op: 'eq', value: q.get('project_id') }, page: 1, per_page: Number(q.get('per_page') ?? 25), sort: [] }];
}

createServer(async (req, res) => {
  const call = callOf(req.url ?? '');
  if (!call) return void res.writeHead(404).end();
  try {
    const [row] = await sql`select api.dispatch('authenticated', ${CLAIMS}::text::jsonb, '127.0.0.1', ${call[0]}, ${JSON.stringify(call[1])}::text::jsonb)::text as r`;
    const body = row!.r as string;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
}).listen(Number(port), '127.0.0.1', () => console.log(`Serving the floor on ${port}`));
process.on('SIGTERM', () => void sql.end({ timeout: 1 }).then(() => process.exit(0)));
