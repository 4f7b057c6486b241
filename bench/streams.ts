// `npm run bench:streams [-- --streams 1000,10000 --rate 200 --duration 10]`: change streams under load. Streams of
// 20 claim sets stay open on one gateway while posts are patched at a steady rate: delivery latency, events per second,
// memory per idle stream, and the write throughput with and without the streams, all measured in one run.
import { randomBytes } from 'node:crypto';
import { request, Agent, type ClientRequest } from 'node:http';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { SignJWT } from 'jose';
import { startTestCluster } from '../test/harness/cluster.ts';
import { freePort } from '../test/harness/net.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { installBenchDatabase } from './install.ts';
import { BENCH_CLAIMS, OWN_PROJECTS, seedPublishing } from './seed.ts';
import { serverCpu } from './server-cpu.ts';
import { clockTicks } from './gateway.ts';

const { values } = parseArgs({ options: {
  streams: { type: 'string', default: '1000,10000' }, rate: { type: 'string', default: '200' }, duration: { type: 'string', default: '10' },
  rows: { type: 'string', default: '10000' },
} });
const counts = values.streams.split(',').map(Number), rate = Number(values.rate), seconds = Number(values.duration), rows = Number(values.rows);
const API = '/api/publishing/v1';
/** Claim sets: the member of each of the bench user's projects (p1 … p20), who sees that project's posts. */
const CLAIM_SETS = OWN_PROJECTS;
const member = (k: number) => `u${((k + 1) * 7) % 2000 + 1}`;

interface Stream { req: ClientRequest; events: number }

/** Opens `n` streams, `n / CLAIM_SETS` per claim set, and resolves once each has its first id (the hub took it in). */
async function openStreams(base: string, tokens: string[], n: number, arrived: (etag: string, key: string) => void): Promise<Stream[]> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const url = new URL(`${base}${API}/posts`);
  const opened: Array<Promise<Stream>> = [];
  for (let i = 0; i < n; i++) {
    opened.push(new Promise<Stream>((resolve, reject) => {
      const s: Stream = { req: undefined as never, events: 0 };
      s.req = request(url, { agent, headers: { accept: 'text/event-stream', authorization: `Bearer ${tokens[i % tokens.length]}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
        let buffer = '', joined = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!joined && block.startsWith('id: ')) { joined = true; resolve(s); }
            const data = block.indexOf('\ndata: ');
            if (data >= 0) {
              const e = JSON.parse(block.slice(data + 7)) as { id: string; etag: string };
              s.events++;
              arrived(e.etag, e.id);
            }
          }
        });
      });
      s.req.on('error', reject);
      s.req.end();
    }));
    if (i % 200 === 199) await Promise.all(opened.slice(-200)); // a few hundred at a time, not all connecting at once
  }
  return Promise.all(opened);
}

/** The Version of each post the bench writes. */
const versions = new Map<string, number>();
/** Writes answered 429 or 503 (load shed) in the current phase. */
let refused = 0;

/** Patches posts for `secs`: at `perSecond` a second (open loop), or as fast as 10 clients go (perSecond 0). */
async function writeLoad(base: string, token: string, ids: string[], secs: number, perSecond: number, sent?: Map<string, number>): Promise<{ rate: number; p50: number }> {
  const end = performance.now() + secs * 1000;
  let done = 0, n = 0;
  const took: number[] = [];
  const result = () => ({ rate: done / secs, p50: pct(took.sort((a, b) => a - b), 0.5) });
  const patch = async (id: string, sentAt?: number) => {
    // Each post is patched once at a time, so its next ETag is known before the answer: the event may come first.
    const next = (versions.get(id) ?? 1) + 1, started = performance.now();
    versions.set(id, next);
    if (sentAt !== undefined) sent?.set(`${id} "${next}"`, sentAt);
    const res = await fetch(`${base}${API}/posts/${id}`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `t${n}` }) });
    const etag = res.headers.get('etag');
    const text = await res.text();
    if (res.status === 429 || res.status === 503) { // the gateway shedding load: counted, and the write was not made
      refused++;
      versions.set(id, next - 1);
      if (sentAt !== undefined) sent?.delete(`${id} "${next}"`);
      return etag;
    }
    if (res.status !== 200) throw new Error(`PATCH ${id}: ${res.status} ${text}`);
    done++;
    took.push(performance.now() - started);
    return etag;
  };
  if (perSecond === 0) {
    await Promise.all(Array.from({ length: 10 }, async (_, c) => {
      for (let i = c; performance.now() < end; i += 10) await patch(ids[i % ids.length]!);
    }));
    return result();
  }
  const started = performance.now(), inFlight: Array<Promise<unknown>> = [];
  // A failure is kept for the end: one left unawaited meanwhile would end the process before its finally stops the gateway.
  let failure: unknown;
  for (let i = 0; performance.now() < end; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const id = ids[i % ids.length]!;
    n = i;
    inFlight.push(patch(id, performance.now()).catch((err: unknown) => { failure ??= err; }));
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  return result();
}

/** The gateway's resident and heap-used bytes, from its /metrics. */
async function memory(base: string): Promise<{ rss: number; heap: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: read('process_resident_memory_bytes'), heap: read('nodejs_heap_size_used_bytes') };
}

/** The hub's passes so far: how many, and their seconds in all (change_stream_pass_seconds). */
async function passStats(base: string): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: read('change_stream_pass_seconds_count'), sum: read('change_stream_pass_seconds_sum') };
}

const pct = (xs: number[], q: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(xs.length * q))]! : NaN);

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  const secret = randomBytes(32).toString('hex');
  const url = await installBenchDatabase(cluster.adminUrl);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  let gateway: Gateway | undefined;
  try {
    await seedPublishing(sql, rows);
    const sign = (sub: string, roles: string[]) => new SignJWT({ roles }).setProtectedHeader({ alg: 'HS256' }).setSubject(sub)
      .setExpirationTime('2h').sign(new TextEncoder().encode(secret));
    const writer = await sign(BENCH_CLAIMS.sub, BENCH_CLAIMS.roles);
    const readers = await Promise.all(Array.from({ length: CLAIM_SETS }, (_, k) => sign(member(k), ['editor'])));
    gateway = await startGateway(url, await freePort(), secret, {
      MAX_CONNECTIONS_PER_CLIENT: '20000', EVENTS_MAX_STREAMS_PER_CALLER: '100000', LOG_LEVEL: 'warn',
    });
    const base = gateway.base;
    // Posts of the writer's own (Owner: author), spread over its projects in turn: a write reaches that project's member.
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${base}${API}/posts`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: `p${(i % OWN_PROJECTS) + 1}`, title: `stream ${i}` }) });
      const answer = await res.json() as { data?: { id: string } };
      if (res.status !== 201 || !answer.data) throw new Error(`create: ${res.status} ${JSON.stringify(answer)}`);
      ids.push(answer.data.id);
    }
    console.log(`PostgreSQL: ${cluster.kind}; ${rows} posts; ${CLAIM_SETS} claim sets (each sees one of ${OWN_PROJECTS} projects); writes: PATCH of posts spread over them`);
    await writeLoad(base, writer, ids, 2, 0); // warm-up
    const baseline = (await writeLoad(base, writer, ids, seconds, 0)).rate;
    const quiet = await writeLoad(base, writer, ids, seconds, rate);
    const pgCpu = await serverCpu(sql, clockTicks());
    const cpuLines: string[] = [];
    console.log(`${'streams'.padStart(7)} ${'KB/idle stream'.padStart(14)} ${'writes/s'.padStart(9)} ${'vs none'.padStart(8)} ${'steady w/s'.padStart(10)} ${'write p50'.padStart(9)} ${'events/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'missing'.padStart(8)}`);
    console.log(`${'0'.padStart(7)} ${''.padStart(14)} ${baseline.toFixed(0).padStart(9)} ${'1.00'.padStart(8)} ${quiet.rate.toFixed(0).padStart(10)} ${quiet.p50.toFixed(1).padStart(9)}`);
    for (const n of counts) {
      const before = await memory(base);
      const sent = new Map<string, number>();
      const latencies: number[] = [];
      let events = 0;
      const streams = await openStreams(base, readers, n, (etag, key) => {
        events++;
        const at = sent.get(`${key} ${etag}`);
        if (at !== undefined) latencies.push(performance.now() - at);
      }).catch((err: unknown) => { console.log(`${String(n).padStart(7)} could not open: ${(err as Error).message}`); return undefined; });
      if (!streams) continue;
      await new Promise((r) => setTimeout(r, 1000));
      const idle = await memory(base);
      const perStream = (idle.rss - before.rss) / n / 1024, heapPerStream = (idle.heap - before.heap) / n / 1024;
      const flat = (await writeLoad(base, writer, ids, seconds, 0)).rate;
      events = 0;
      latencies.length = 0;
      refused = 0;
      const t = performance.now();
      const passesBefore = await passStats(base);
      const cpu = { gateway: gateway.cpuMicros() ?? 0, pg: pgCpu?.() ?? 0, bench: process.cpuUsage() };
      const steady = await writeLoad(base, writer, ids, seconds, rate, sent);
      await new Promise((r) => setTimeout(r, 2000)); // the last events
      const elapsed = (performance.now() - t) / 1000;
      const eventsPerSecond = events / elapsed;
      const bench = process.cpuUsage(cpu.bench);
      const passes = await passStats(base);
      cpuLines.push(`${n} streams: ${heapPerStream.toFixed(1)} KB of JavaScript heap per idle stream (of the ${perStream.toFixed(1)} KB resident); steady phase: CPU of the gateway ${(((gateway.cpuMicros() ?? 0) - cpu.gateway) / 1e4 / elapsed).toFixed(0)}%, `
        + `PostgreSQL ${(((pgCpu?.() ?? 0) - cpu.pg) / 1e4 / elapsed).toFixed(0)}%, this bench (its clients) ${((bench.user + bench.system) / 1e4 / elapsed).toFixed(0)}% (of one core); `
        + `${((passes.count - passesBefore.count) / elapsed).toFixed(0)} passes/s of ${((passes.sum - passesBefore.sum) / Math.max(1, passes.count - passesBefore.count) * 1000).toFixed(1)} ms`);
      const expected = sent.size * (n / CLAIM_SETS);
      latencies.sort((a, b) => a - b);
      console.log(`${String(n).padStart(7)} ${perStream.toFixed(1).padStart(14)} ${flat.toFixed(0).padStart(9)} ${(flat / baseline).toFixed(2).padStart(8)} ${steady.rate.toFixed(0).padStart(10)} ${steady.p50.toFixed(1).padStart(9)} `
        + `${eventsPerSecond.toFixed(0).padStart(9)} ${pct(latencies, 0.5).toFixed(1).padStart(7)} ${pct(latencies, 0.99).toFixed(1).padStart(7)} ${String(Math.max(0, expected - latencies.length)).padStart(8)}${refused ? `  (${refused} writes shed: 429/503)` : ''}`);
      for (const s of streams) s.req.destroy();
      await new Promise((r) => setTimeout(r, 1000));
    }
    for (const line of cpuLines) console.log(line);
    console.log('KB/idle stream: the gateway\'s resident memory with the streams open and idle, less before, per stream.'
      + ' writes/s: PATCH as fast as 10 clients go, beside the streams; vs none: against the same with no stream open.'
      + ` steady: PATCH at ${rate}/s (open loop) while the streams take every event, and its p50 in ms; p50/p99: from the PATCH request's send to an event's arrival`
      + ' on a stream (an upper bound on commit-to-delivery); missing: events expected (each write, to every stream of its project) and not seen.');
  } finally {
    await gateway?.stop();
    await sql.end();
    await cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
