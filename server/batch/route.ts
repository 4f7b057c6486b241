// POST {basePath}/batch as a route of the app: the caller through the identity stage, the body read once, an
// Idempotency-Key taken over the whole body; the operations run in batch/run.ts, and a failure before them
// becomes a problem document at the one boundary (stages/boundary.ts).
import type { Context } from 'hono';
import { failedRequest, setRoute } from '../http/observe.ts';
import { methodNotAllowed } from '../problem/types.ts';
import { readJsonObject } from '../request/body.ts';
import { callerIp } from '../request/caller.ts';
import { idempotencyKey } from '../request/idempotency.ts';
import { refuseAnyQuery } from '../request/query.ts';
import { canonicalText, responseText } from '../codec/json.ts';
import { answerProblem } from '../stages/boundary.ts';
import type { Gateway } from '../stages/context.ts';
import { identify } from '../stages/identity.ts';
import { batchRunner, type BatchDeps } from './run.ts';

export function batchRoute(g: Gateway): (c: Context) => Promise<Response> {
  const { files } = g.opts;
  const deps: Omit<BatchDeps, 'log'> = {
    manifest: g.manifest, routes: g.routes, planner: g.planner, documents: g.documents, pool: g.pools.primary, ...(files ? { files } : {}),
  };
  return async (c) => {
    try {
      if (c.req.method !== 'POST') throw methodNotAllowed(c.req.method, ['POST']);
      setRoute(c, `${g.basePath}/batch`);
      refuseAnyQuery(c.req.url);
      const identity = await identify(g, c);
      const body = await readJsonObject(c.req.raw, g.limits.maxBodyBytes, g.limits.maxJsonMembers);
      const ip = callerIp(c, g.trust);
      const once = idempotencyKey(c.req.raw.headers, identity, ip, () => `batch\n${canonicalText(body)}`, g.limits.idempotencyTtlSeconds);
      // The batch's failure is logged with the status it answered (a runner per batch: its log knows the request).
      const failures: unknown[] = [];
      const batch = batchRunner({ ...deps, log: (_message, err) => void failures.push(err) });
      const outcome = await batch({ identity, ip, requestUrl: c.req.url, ...(once ? { once } : {}) }, body);
      for (const err of failures) g.log('request failed', err, failedRequest(c, outcome.status));
      return new Response(responseText(outcome.body), { status: outcome.status, headers: outcome.headers });
    } catch (err) {
      return answerProblem(g, c, err);
    }
  };
}
