// Load generators of the benchmark: autocannon against the gateway, and a loop of concurrent calls for
// direct database work (postgres.js), both reporting req/s, p50 and p99 latency, errors and CPU per request.
import autocannon from 'autocannon';
import { statusFor } from '../server/problem/sqlstate.ts';

export interface Result {
  workload: string;
  path: string;
  rps: number;
  p50: number;
  p99: number;
  /** The 99.9th percentile of latency, ms. */
  p999: number;
  errors: number;
  /**
   * CPU time per request, in µs, of the process that talks to PostgreSQL: the gateway's for a gateway
   * row, this process's (postgres.js) for the others. Absent where it cannot be read.
   */
  cpuUs?: number;
  /** PostgreSQL's CPU time per request (µs) while this row ran, where the server is a process of this machine. */
  pgUs?: number;
  /** The first failure seen, to print when errors is not 0. */
  sample?: string;
  /** Of the gateway while a gateway row ran (its /metrics): event-loop delay p99, and GC pauses (ms in all, and how many). */
  loopP99?: number;
  gcMs?: number;
  gcCount?: number;
}

/**
 * Runs `call(worker, n)` from `connections` concurrent loops for `seconds`. `refused`: the workload asks for what is
 * refused (a read of a hidden record), so a failure with one of these problem statuses is its answer, not an error.
 */
export async function loop(workload: string, path: string, connections: number, seconds: number,
  call: (worker: number, n: number) => Promise<unknown>, refused: readonly number[] = []): Promise<Result> {
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  let errors = 0;
  let sample: string | undefined;
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async (_, worker) => {
    for (let n = 0; performance.now() < end; n++) {
      const t = performance.now();
      try {
        await call(worker, n);
      } catch (err) {
        if (!refused.includes(problemStatus(err))) {
          errors++;
          sample ??= String((err as Error).message ?? err);
        }
      }
      latencies.push(performance.now() - t);
    }
  }));
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN;
  const cpuUs = (used.user + used.system) / Math.max(latencies.length, 1);
  return { workload, path, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), p999: at(0.999), errors, cpuUs, ...(sample ? { sample } : {}) };
}

/** The HTTP status the gateway answers a database error with (server/problem/sqlstate.ts), or 0 for another error. */
function problemStatus(err: unknown): number {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? statusFor(code, false) : 0;
}

export interface HttpWork {
  method: 'GET' | 'POST' | 'PATCH';
  /** Path and body of the next request of a connection; `context` lives as long as the connection. */
  next: (context: Record<string, unknown>) => { path: string; body?: unknown; headers?: Record<string, string> };
  /** Statuses that are this workload's answer (a refused read: 403, 404), not errors. */
  refused?: readonly number[];
  /** Sees each response of a connection (e.g. to keep the ETag a PATCH must send next). */
  seen?: (context: Record<string, unknown>, status: number, headers: Record<string, string>, body: string) => void;
  /**
   * The same work for wrk (bench/wrk.ts), as Lua defining `request` (and `response`), where it keeps state
   * from answers; `send(method, path, headers, body)` formats a request with the token. Without it, wrk
   * sends requests made ahead by `next`.
   */
  wrk?: string;
}

/** autocannon against the gateway at `base`, with the caller's token; `cpu` reads the gateway's CPU time (µs). */
export async function cannon(workload: string, base: string, token: string, connections: number, seconds: number, work: HttpWork,
  cpu: () => number | undefined = () => undefined): Promise<Result> {
  let sample: string | undefined;
  let unexpected = 0;
  const before = cpu();
  const result = await autocannon({
    url: base, connections, duration: seconds,
    requests: [{
      method: work.method,
      setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
        const { path, body, headers } = work.next(context);
        return { ...req, path, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
      },
      onResponse: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => {
        if (status >= 300 && status !== 304 && !work.refused?.includes(status)) {
          unexpected++;
          sample ??= `${status} ${body.slice(0, 300)}`;
        }
        work.seen?.(context, status, headers, body);
      },
    }],
  } as autocannon.Options);
  const after = cpu();
  const cpuUs = before === undefined || after === undefined ? undefined : (after - before) / Math.max(result.requests.total, 1);
  return {
    workload, path: 'gateway', rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, p999: result.latency.p99_9,
    errors: unexpected + result.errors + result.timeouts, ...(cpuUs === undefined ? {} : { cpuUs }), ...(sample ? { sample } : {}),
  };
}
