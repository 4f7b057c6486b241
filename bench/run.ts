// `npm run bench [-- --rows 100000 --duration 8 --connections 10 --rounds 1 --only read --load wrk|autocannon]`: installs the publishing
// example in a PostgreSQL of its own (embedded, or DATABASE_URL's server), seeds it, starts the gateway,
// and measures each workload through the gateway, as direct api.dispatch calls, and against its floor.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { SignJWT } from 'jose';
import { installBenchDatabase } from './install.ts';
import { startTestCluster } from '../test/harness/cluster.ts';
import { freePort } from '../test/harness/net.ts';
import { clockTicks, startGateway, startServer } from './gateway.ts';
import { serverCpu } from './server-cpu.ts';
import { cannon, loop, type Result } from './load.ts';
import { sampled } from './gateway-samples.ts';
import { combineRounds, keep, printTable, ratios } from './report.ts';
import { wrkPath, wrkRun } from './wrk.ts';
import { BENCH_CLAIMS, seedPublishing } from './seed.ts';
import { workloads, type Workload } from './workloads.ts';

/** How long each path runs, unmeasured, before a workload's first round. */
const WARM_UP_SECONDS = 3;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' }, duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '1' }, only: { type: 'string' }, load: { type: 'string' },
  },
});
const rows = Number(values.rows), seconds = Number(values.duration), connections = Number(values.connections), rounds = Number(values.rounds);
if (![rows, seconds, connections, rounds].every((x) => Number.isInteger(x) && x > 0) || connections > 10) {
  throw new Error('--rows, --duration, --connections and --rounds take positive whole numbers (at most 10 connections)');
}

async function main(): Promise<void> {
  const cluster = await startTestCluster();
  const secret = randomBytes(32).toString('hex');
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined, floor: typeof gateway, honoFloor: typeof gateway;
  try {
    const url = await installBenchDatabase(cluster.adminUrl);
    // The table owner (the cluster's superuser): the raw floor runs as it, and api.dispatch switches role itself.
    const sql = postgres(url, { max: connections, onnotice: () => {} });
    const t = performance.now();
    await seedPublishing(sql, rows);
    console.log(`PostgreSQL: ${cluster.kind}; seeded ${rows} posts in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    gateway = await startGateway(url, await freePort(), secret);
    const [floorPort, honoPort] = [await freePort(), await freePort()];
    floor = await startServer(['bench/floor-server.ts', url, String(floorPort), 'node'], {}, floorPort);
    honoFloor = await startServer(['bench/floor-server.ts', url, String(honoPort), 'hono'], {}, honoPort);
    const token = await new SignJWT({ roles: BENCH_CLAIMS.roles, email: BENCH_CLAIMS.email })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(BENCH_CLAIMS.sub).setExpirationTime('2h').sign(new TextEncoder().encode(secret));
    // The HTTP load generator: wrk where installed (--load autocannon to choose the other).
    const wrk = values.load === 'autocannon' ? undefined : wrkPath();
    if (values.load === 'wrk' && !wrk) throw new Error('--load wrk: wrk is not on the PATH (Debian: apt-get install wrk)');
    console.log(`HTTP load: ${wrk ? `wrk (${wrk})` : 'autocannon'}`);
    const measured: Result[] = [];
    const pgCpu = await serverCpu(sql, clockTicks());
    /** A row with PostgreSQL's CPU per request while it ran, when the server is a process of this machine. */
    const withServerCpu = async (secs: number, measure: () => Promise<Result>): Promise<Result> => {
      const before = pgCpu?.();
      const r = await measure();
      const after = pgCpu?.();
      return before === undefined || after === undefined ? r : { ...r, pgUs: (after - before) / Math.max(r.rps * secs, 1) };
    };
    /** Every path of the workload once, each for `secs`, one after the other. */
    const round = async (w: Workload, secs: number): Promise<Result[]> => {
      await w.beforeRound?.(sql);
      const http = (base: string, cpu: () => number | undefined) => (wrk
        ? wrkRun(wrk, w.name, base, token, connections, secs, w.http, cpu)
        : cannon(w.name, base, token, connections, secs, w.http, cpu));
      const out: Result[] = [];
      out.push(await sampled(gateway!.base, () => withServerCpu(secs, () => http(gateway!.base, gateway!.cpuMicros))));
      out.push(await withServerCpu(secs, () => loop(w.name, 'direct', connections, secs, (worker, n) => w.direct(sql, worker, n), w.http.refused)));
      if (w.floor) {
        out.push({ ...await withServerCpu(secs, () => http(floor!.base, floor!.cpuMicros)), path: 'floor' });
        out.push({ ...await withServerCpu(secs, () => http(honoFloor!.base, honoFloor!.cpuMicros)), path: 'hono floor' });
      }
      if (w.raw) out.push(await withServerCpu(secs, () => loop(w.name, 'raw', connections, secs, (worker, n) => w.raw!(sql, worker, n))));
      if (w.hand) out.push(await withServerCpu(secs, () => loop(w.name, 'hand', connections, secs, (worker, n) => w.hand!(sql, worker, n))));
      return out;
    };
    // Each round measures every path of the workload once, one after the other, so a change in the machine's
    // speed (it is shared) falls on all of them alike; the table shows each path's median over the rounds. A
    // round of WARM_UP_SECONDS first, not counted, runs each path's code until V8 has compiled it (a server
    // answers for hours; its first seconds after start measure the compiler, not the path).
    for (const w of workloads(rows).filter((x) => !values.only || x.name.includes(values.only))) {
      await w.setup?.(sql);
      await round(w, Math.min(WARM_UP_SECONDS, seconds));
      for (let r = 0; r < rounds; r++) {
        measured.push(...await round(w, seconds));
        console.log(`  measured ${w.name}${rounds > 1 ? `, round ${r + 1} of ${rounds}` : ''}`);
      }
    }
    const results = combineRounds(measured);
    printTable(results);
    console.log(`\n${ratios(results)}`);
    console.log(`(${rows} posts, ${connections} connections, ${seconds} s per row${rounds > 1 ? `, median of ${rounds} rounds` : ''}, HTTP load by ${wrk ? 'wrk' : 'autocannon'}; `
      + `kept in ${keep(measured, { rows, connections, seconds, rounds, load: wrk ? 'wrk' : 'autocannon' })})`);
    await sql.end();
  } finally {
    await gateway?.stop();
    await floor?.stop();
    await honoFloor?.stop();
    await cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
