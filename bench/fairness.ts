// `npm run bench:fairness [-- --rows 100000 --duration 8]`: how much one caller's flood slows everyone else. Another
// caller reads posts by id while nothing else runs, then while one client signs up in a loop (a bcrypt hash each),
// then while one caller sends slow searches; with the per-caller shares on (defaults) and off, in one run.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { SignJWT } from 'jose';
import { startTestCluster } from '../test/harness/cluster.ts';
import { freePort } from '../test/harness/net.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { installBenchDatabase } from './install.ts';
import { BENCH_CLAIMS, publishedPostId, seedPublishing } from './seed.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, duration: { type: 'string', default: '8' } } });
const rows = Number(values.rows), seconds = Number(values.duration);
const API = '/api/publishing/v1';
/** Readers of the measured caller, and clients of each flood. */
const READERS = 2, FLOODERS = 12;

interface Latency { rps: number; p50: number; p90: number; p99: number }

/** The measured caller: READERS loops reading published posts by id for `seconds`. */
async function readLatency(base: string, token: string): Promise<Latency> {
  const ms: number[] = [];
  const end = performance.now() + seconds * 1000;
  const published = Math.floor(rows / 4);
  await Promise.all(Array.from({ length: READERS }, async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const res = await fetch(`${base}${API}/posts/${publishedPostId(Math.floor(Math.random() * published))}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      ms.push(performance.now() - started);
    }
  }));
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))]!;
  return { rps: ms.length / seconds, p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/** FLOODERS loops of `request` until `stop` says so; answers by status. */
function flood(request: (i: number, n: number) => Promise<Response>): { stop: () => Promise<Map<number, number>> } {
  let running = true;
  const statuses = new Map<number, number>();
  const loops = Array.from({ length: FLOODERS }, async (_, i) => {
    for (let n = 0; running; n++) {
      const res = await request(i, n);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  });
  return { stop: async () => { running = false; await Promise.all(loops); return statuses; } };
}

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  const secret = randomBytes(32).toString('hex');
  const url = await installBenchDatabase(cluster.adminUrl);
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  let gateway: Gateway | undefined;
  try {
    await seedPublishing(sql, rows);
    const sign = (sub: string, roles: string[]) => new SignJWT({ roles, email: `${sub}@example.com` }).setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub).setExpirationTime('2h').sign(new TextEncoder().encode(secret));
    const reader = await sign('u7', ['viewer']);
    const searcher = await sign(BENCH_CLAIMS.sub, BENCH_CLAIMS.roles);
    const database = new URL(url).pathname.slice(1);
    console.log(`PostgreSQL: ${cluster.kind}; ${rows} posts; ${READERS} readers measured, ${FLOODERS} clients per flood, ${seconds} s each`);
    console.log(`${'shares'.padEnd(8)} ${'while'.padEnd(22)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)} ${'p99 ms'.padStart(8)}  flood answers`);
    const ratios: string[] = [];
    for (const shares of [true, false]) {
      // Off: one caller may hold every connection, and as many hashes run as are sent.
      await sql.unsafe(`ALTER DATABASE ${database} ${shares ? 'RESET lib.password_hashes_at_once' : 'SET lib.password_hashes_at_once = 64'}`);
      gateway = await startGateway(url, await freePort(), secret, shares ? {} : { POOL_CALLER_MAX: '10' });
      const base = gateway.base;
      const quiet = await readLatency(base, reader);
      const row = (what: string, l: Latency, answers = '') => console.log(`${(shares ? 'on' : 'off').padEnd(8)} ${what.padEnd(22)} ${l.rps.toFixed(0).padStart(7)} ${l.p50.toFixed(1).padStart(8)} ${l.p90.toFixed(1).padStart(8)} ${l.p99.toFixed(1).padStart(8)}  ${answers}`);
      row('nothing else', quiet);
      const floods: Array<[string, (i: number, n: number) => Promise<Response>]> = [
        ['sign-ups (one client)', (i, n) => fetch(`${base}${API}/users`, { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: `flood-${shares}-${i}-${n}@example.com`, password: 'pw-flood-123', display_name: 'F' }) })],
        ['searches (one caller)', () => fetch(`${base}${API}/posts?body[like]=*post 9*&word_count[gte]=1`, { headers: { authorization: `Bearer ${searcher}` } })],
      ];
      for (const [what, request] of floods) {
        const f = flood(request);
        await new Promise((r) => setTimeout(r, 500));
        const during = await readLatency(base, reader);
        const answers = await f.stop();
        row(what, during, [...answers].sort(([a], [b]) => a - b).map(([k, v]) => `${k}: ${v}`).join(', '));
        ratios.push(`${what} p90 ${shares ? 'with' : 'without'} shares ${(during.p90 / quiet.p90).toFixed(1)}x quiet`);
      }
      await gateway.stop();
      gateway = undefined;
    }
    console.log(`\nratios: ${ratios.join('; ')}`);
  } finally {
    await gateway?.stop();
    await sql.end();
    await cluster.stop();
  }
}

await main();
