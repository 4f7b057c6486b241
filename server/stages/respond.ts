// Stage respond: the call's result as the HTTP answer (server/response/respond.ts: status, headers, projection),
// with the request's id, a replay's Idempotent-Replayed and, when asked for, the winning Access-Scenario.
import type { Context } from 'hono';
import { requestIdOf, shaped } from '../http/observe.ts';
import type { Plan } from '../plan/plan.ts';
import type { ParsedRequest } from '../request/parse.ts';
import { respond as answer } from '../response/respond.ts';
import type { Gateway } from './context.ts';

export function respond(g: Gateway, c: Context, plan: Plan, request: ParsedRequest, result: unknown): Response {
  const res = answer(plan, result, request.validators, g.basePath, { 'X-Request-Id': requestIdOf(c) });
  shaped(c);
  if ((result as { replayed?: boolean } | null)?.replayed) res.headers.set('Idempotent-Replayed', 'true');
  const scenario = (result as { scenario?: unknown } | null)?.scenario;
  if (g.opts.explainAccess && typeof scenario === 'string') res.headers.set('Access-Scenario', scenario.replace(/[^\x20-\x7e]/g, (ch) => encodeURIComponent(ch)));
  return res;
}
