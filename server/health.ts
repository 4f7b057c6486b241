// GET /health and /ready: 200 {"status":"ok"} when `select 1` answers on the API's database in time, else a
// 503 problem document; GET /live: 200 while the process runs. For load balancers and orchestrators.
// Requests that come while a probe is out wait for its answer: a flood of them sends one statement at a time.
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { problemText } from './problem/render.ts';
import { ApiError } from './problem/types.ts';

export interface HealthOptions {
  /** How long the database may take to answer before the service counts as unavailable. */
  timeoutMs?: number;
  /** The model's `api.docsUrl`; the problem `type` is `{docsUrl}/errors/unavailable` when given. */
  docsUrl?: string;
}

export function healthRoutes(sql: Sql, opts: HealthOptions = {}): Hono {
  const app = new Hono();
  let probing: Promise<unknown> | undefined;
  // One `select 1` out at a time, until it settles (past a caller's time limit too): the others share its answer.
  const probe = () => (probing ??= Promise.resolve(sql`select 1`).finally(() => { probing = undefined; }));
  // Liveness: the process answers (no database needed); readiness: as /health.
  app.get('/live', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' }));
  app.on('GET', ['/health', '/ready'], async (c) => {
    c.header('Cache-Control', 'no-store');
    try {
      await withTimeout(probe(), opts.timeoutMs ?? 3000);
      return c.json({ status: 'ok' });
    } catch {
      // Never the driver's message: it may name hosts.
      const problem = problemText(new ApiError('unavailable', 'The database is not answering.'), opts.docsUrl ? { docsUrl: opts.docsUrl } : {});
      return c.body(problem.text, 503, { 'Content-Type': problem.contentType });
    }
  });
  return app;
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
