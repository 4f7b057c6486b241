// Prints the benchmark's table (req/s, p50, p99, errors and CPU per request, by workload and path) and the ratios the
// engine's targets are stated in, and keeps the run as JSON under .data/ for comparisons.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from './load.ts';

const pad = (s: string, n: number) => s.padEnd(n);
const num = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-').padStart(9);

export function printTable(results: Result[]): void {
  console.log(`\n${pad('workload', 26)}${pad('path', 10)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'errors'.padStart(8)}${'cpu µs'.padStart(9)}${'pg µs'.padStart(9)}`);
  for (const r of results) {
    console.log(`${pad(r.workload, 26)}${pad(r.path, 10)}${num(r.rps, 0)}${num(r.p50, 2)}${num(r.p99, 2)}${String(r.errors).padStart(8)}${num(r.cpuUs ?? NaN, 0)}${num(r.pgUs ?? NaN, 0)}`);
    if (r.errors > 0) console.log(`  !! ${r.errors} failed requests, first: ${r.sample}`);
  }
}

/**
 * One row per workload and path, in the order first measured: the median of its rounds' req/s, p50, p99 and
 * CPU per request (each on its own), with every round's errors added up.
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
    const cpu = rs.flatMap((r) => (r.cpuUs === undefined ? [] : [r.cpuUs]));
    const pg = rs.flatMap((r) => (r.pgUs === undefined ? [] : [r.pgUs]));
    const sample = rs.find((r) => r.sample)?.sample;
    return {
      workload: rs[0]!.workload, path: rs[0]!.path, rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)), errors: rs.reduce((n, r) => n + r.errors, 0),
      ...(cpu.length ? { cpuUs: median(cpu) } : {}), ...(pg.length ? { pgUs: median(pg) } : {}), ...(sample ? { sample } : {}),
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
