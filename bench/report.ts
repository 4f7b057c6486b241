// Prints the benchmark's table (req/s, p50, p99, p99.9, errors, CPU per request, and the gateway's event-loop delay and GC
// pauses, by workload and path) and the ratios the
// engine's targets are stated in, and keeps the run as JSON under .data/ for comparisons.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from './load.ts';

const pad = (s: string, n: number) => s.padEnd(n);
const num = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-').padStart(9);

export function printTable(results: Result[]): void {
  console.log(`\n${pad('workload', 26)}${pad('path', 10)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'p99.9 ms'.padStart(9)}`
    + `${'errors'.padStart(8)}${'cpu µs'.padStart(9)}${'pg µs'.padStart(9)}${'loop p99'.padStart(9)}${'gc ms'.padStart(9)}${'gcs'.padStart(6)}`);
  for (const r of results) {
    console.log(`${pad(r.workload, 26)}${pad(r.path, 10)}${num(r.rps, 0)}${num(r.p50, 2)}${num(r.p99, 2)}${num(r.p999, 2)}${String(r.errors).padStart(8)}`
      + `${num(r.cpuUs ?? NaN, 0)}${num(r.pgUs ?? NaN, 0)}${num(r.loopP99 ?? NaN, 1)}${num(r.gcMs ?? NaN, 0)}${(r.gcCount === undefined ? '-' : String(r.gcCount)).padStart(6)}`);
    if (r.errors > 0) console.log(`  !! ${r.errors} failed requests, first: ${r.sample}`);
  }
}

/**
 * One row per workload and path, in the order first measured: the median of its rounds' req/s, latencies, CPU per
 * request and the gateway's samples (each on its own), with every round's errors added up.
 */
export function combineRounds(measured: Result[]): Result[] {
  const groups = new Map<string, Result[]>();
  for (const r of measured) {
    const key = `${r.workload}\n${r.path}`;
    groups.set(key, [...groups.get(key) ?? [], r]);
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b), m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  return [...groups.values()].map((rs) => {
    const optional = (key: 'cpuUs' | 'pgUs' | 'loopP99' | 'gcMs' | 'gcCount') => {
      const xs = rs.flatMap((r) => (r[key] === undefined ? [] : [r[key]!]));
      return xs.length ? { [key]: median(xs) } : {};
    };
    const sample = rs.find((r) => r.sample)?.sample;
    return {
      workload: rs[0]!.workload, path: rs[0]!.path, rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)), p999: median(rs.map((r) => r.p999)), errors: rs.reduce((n, r) => n + r.errors, 0),
      ...optional('cpuUs'), ...optional('pgUs'), ...optional('loopP99'), ...optional('gcMs'), ...optional('gcCount'), ...(sample ? { sample } : {}),
    };
  });
}

/** The ratios of issue 15's targets, from results of the same run. */
export function ratios(results: Result[]): string {
  const get = (w: string, p: string) => results.find((r) => r.workload === w && r.path === p);
  const ratio = (a?: Result, b?: Result) => (a && b ? (a.rps / b.rps).toFixed(2) : '-');
  const parts: string[] = [];
  const read = get('read by id', 'direct');
  if (read) parts.push(`read direct/raw ${ratio(read, get('read by id', 'raw'))} (target >= 0.35)`);
  // A refusal (what an enumeration sends) against the read it stands in for, on each path.
  for (const p of ['direct', 'gateway']) {
    const refused = get('read refused', p);
    if (refused) parts.push(`read refused/read by id ${p} ${ratio(refused, get('read by id', p))} (target >= 0.5)`);
  }
  const unindexed = get('list not indexed', 'direct');
  if (unindexed) parts.push(`list not indexed direct/raw ${ratio(unindexed, get('list not indexed', 'raw'))} (raw: the owner's count and page)`);
  // Tails: p99 against p50 of every row (target: within 5x for reads and writes).
  parts.push(`p99/p50: ${results.map((r) => `${r.workload} ${r.path} ${(r.p99 / r.p50).toFixed(1)}`).join(', ')}`);
  for (const w of [...new Set(results.map((r) => r.workload))]) {
    if (get(w, 'gateway') && get(w, 'direct')) parts.push(`${w} gateway/direct ${ratio(get(w, 'gateway'), get(w, 'direct'))}`);
  }
  // The HTTP floors (bench/floor-server.ts): how near a gateway of any kind (bare node:http), and one built on the
  // gateway's HTTP parts (Hono on @hono/node-server), could come to direct on this machine.
  for (const w of [...new Set(results.map((r) => r.workload))]) {
    if (!get(w, 'floor') || !get(w, 'direct')) continue;
    parts.push(`${w} floor/direct ${ratio(get(w, 'floor'), get(w, 'direct'))}, hono floor/direct ${ratio(get(w, 'hono floor'), get(w, 'direct'))}, `
      + `gateway/hono floor ${ratio(get(w, 'gateway'), get(w, 'hono floor'))}`);
  }
  for (const w of ['patch if-match', 'create']) {
    if (get(w, 'direct') && get(w, 'hand')) parts.push(`${w} direct/hand ${ratio(get(w, 'direct'), get(w, 'hand'))} (target >= 0.5)`);
  }
  // Each depth's cursor page against its offset page, and how each kind's rate changes from the shallowest depth.
  const pages = (kind: string) => results.filter((r) => r.path === 'direct' && new RegExp(`^page \\d+ ${kind}$`).test(r.workload));
  for (const cursor of pages('cursor')) {
    const offset = get(cursor.workload.replace(/cursor$/, 'offset'), 'direct');
    if (offset) parts.push(`${cursor.workload}/offset direct ${ratio(cursor, offset)}`);
  }
  for (const kind of ['offset', 'cursor']) {
    const all = pages(kind);
    if (all.length > 1) parts.push(`${kind} paging, direct req/s by depth: ${all.map((r) => `${r.workload.split(' ')[1]}: ${r.rps.toFixed(0)}`).join(', ')}`);
  }
  for (const w of [...new Set(results.map((r) => r.workload))]) {
    const [g, d] = [get(w, 'gateway')?.cpuUs, get(w, 'direct')?.cpuUs];
    if (g !== undefined && d !== undefined) parts.push(`${w} gateway CPU ${g.toFixed(0)} µs/request (postgres.js alone ${d.toFixed(0)})`);
  }
  const list = get('list indexed', 'gateway');
  if (list) parts.push(`list indexed gateway p50 ${list.p50.toFixed(1)} ms (target < 10)`);
  return `ratios: ${parts.join('; ')}`;
}

export function keep(results: Result[], meta: Record<string, unknown>): string {
  const dir = join(process.cwd(), '.data');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ meta, results }, null, 2));
  return file;
}
