// wrk (a C load generator: Debian's `wrk`) against the gateway: it spends a fraction of autocannon's CPU
// per request, and on a 2-core machine whatever the load generator spends is taken from the gateway and PostgreSQL.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HttpWork, Result } from './load.ts';

/** wrk's path when it is installed, else undefined (the bench then uses autocannon). */
export function wrkPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Requests made ahead of the run from a stateless workload, sent in turn. */
const AHEAD = 20_000;

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal for this text

/** The Lua script of a workload: its own (stateful), or its requests made ahead and sent round-robin. */
function script(work: HttpWork, token: string): string {
  const common = `local auth = ${lua(`Bearer ${token}`)}
local function send(method, path, headers, body)
  headers = headers or {}
  headers["Authorization"] = auth
  headers["Content-Type"] = "application/json"
  return wrk.format(method, path, headers, body)
end
`;
  // A workload whose answer is a refusal counts, per thread, the statuses that are neither 2xx/3xx nor its own.
  const refused = work.refused?.length ? `
local threads = {}
setup = function(thread) table.insert(threads, thread) end
local expected = {${work.refused.map((s) => `[${s}] = true`).join(', ')}}
unexpected = 0
response = function(status, headers, body)
  if status > 399 and not expected[status] then unexpected = unexpected + 1 end
end
` : '';
  const statusErrors = work.refused?.length
    ? '(function() local n = 0; for _, t in ipairs(threads) do n = n + t:get("unexpected") end; return n end)()' : 'e.status';
  const report = `${refused}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %.0f %.0f %.0f\\n", summary.requests, ${statusErrors}, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
`;
  if (work.wrk) return common + work.wrk + report;
  const context: Record<string, unknown> = {};
  const made = Array.from({ length: AHEAD }, () => {
    const { path, body, headers } = work.next(context);
    const h = Object.entries(headers ?? {}).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`).join(', ');
    return `{${lua(path)}, {${h}}, ${body === undefined ? 'nil' : lua(JSON.stringify(body))}}`;
  });
  // Each request is formatted once, in the thread's init (where wrk knows the Host header), and then only
  // handed out: formatting one per request cost wrk a fifth of its CPU (25 -> 20 µs a request).
  return `${common}local made = {
${made.join(',\n')}
}
local texts = {}
init = function(args)
  for i, r in ipairs(made) do texts[i] = send(${lua(work.method)}, r[1], r[2], r[3]) end
end
local n = 0
request = function()
  n = n % #texts + 1
  return texts[n]
end
${report}`;
}

/** wrk against the gateway at `base` for `seconds`, one thread, `connections` connections. */
export async function wrkRun(bin: string, workload: string, base: string, token: string, connections: number, seconds: number,
  work: HttpWork, cpu: () => number | undefined = () => undefined): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'modelapi-wrk-'));
  try {
    const file = join(dir, 'work.lua');
    writeFileSync(file, script(work, token));
    const before = cpu();
    const { stdout } = await promisify(execFile)(bin, ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', file, base], { maxBuffer: 1 << 24 });
    const after = cpu();
    if (process.env.BENCH_DEBUG) console.log(stdout);
    const m = /^RESULT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$/m.exec(stdout);
    if (!m) throw new Error(`wrk printed no result:\n${stdout}`);
    const [requests, status, socket, p50, p99, p999] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    const cpuUs = before === undefined || after === undefined ? undefined : (after - before) / Math.max(requests, 1);
    const errors = status + socket;
    return {
      workload, path: 'gateway', rps: requests / seconds, p50: p50 / 1000, p99: p99 / 1000, p999: p999 / 1000, errors,
      ...(cpuUs === undefined ? {} : { cpuUs }), ...(errors ? { sample: `${status} non-2xx/3xx answers, ${socket} socket errors` } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
