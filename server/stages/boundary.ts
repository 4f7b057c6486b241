// The one boundary between a failure and the client: whatever a stage, a route of the app or a middleware throws
// becomes the request's problem document here (stages/problem.ts names the problem with what the stages found:
// the plan, the caller), and a 5xx's cause goes to the failure log, never to the client.
import type { Context } from 'hono';
import { failedRequest } from '../http/observe.ts';
import { renderProblem } from '../problem/render.ts';
import { ANONYMOUS } from '../request/auth.ts';
import type { Gateway } from './context.ts';
import { requestProblem } from './problem.ts';

export function answerProblem(g: Gateway, c: Context, err: unknown): Response {
  const problem = requestProblem(err, c.get('plan'), c.get('identity') ?? ANONYMOUS, g.manifest);
  if (problem.status >= 500) g.log('request failed', problem.cause ?? problem, failedRequest(c, problem.status));
  return renderProblem(problem, { docsUrl: g.docsUrl, instance: new URL(c.req.url).pathname });
}
