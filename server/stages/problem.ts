// The problem a failed request (or batch operation) answers with, made by problem/render.ts from what the stages found:
// database errors mapped with what the planned endpoint tells about them (or, for a DatabaseFailure outside a plan,
// with no table of the request's own), a bulk element's with its index, `errors[].property` by wire names.
import type { Manifest } from '../../compiler/manifest/types.ts';
import type { Plan } from '../plan/plan.ts';
import { ElementFailure } from '../query/dispatch.ts';
import type { Identity } from '../request/auth.ts';
import { problemOf as problemFrom } from '../problem/render.ts';
import { ApiError, DatabaseFailure, locate } from '../problem/types.ts';

export function requestProblem(err: unknown, plan: Plan | undefined, identity: Identity, manifest: Manifest): ApiError {
  return plan ? wireNames(problemOf(err, plan, identity, manifest), plan) : problemOf(err, plan, identity, manifest);
}

/** `errors[].property` by the wire's names: SQL, and the file checks on bodies in column names, say the column's. */
function wireNames(problem: ApiError, plan: Plan): ApiError {
  for (const e of problem.extra.errors ?? []) e.property = plan.wire.wireName(e.property);
  return problem;
}

function problemOf(err: unknown, plan: Plan | undefined, identity: Identity, manifest: Manifest): ApiError {
  if (err instanceof ApiError) return err;
  const anonymous = identity.role === 'anon';
  if (!plan) return problemFrom(err, err instanceof DatabaseFailure ? { manifest, anonymous: err.anonymous ?? anonymous, ownTables: [] } : undefined);
  const e = plan.endpoint, rel = e.relation?.def;
  const problem = problemFrom(err, {
    manifest,
    anonymous,
    deleting: e.action === 'delete',
    ownTables: [e.resource.table, ...(rel?.kind === 'oneToOne' ? [rel.table] : [])],
    wireName: plan.wire.wireName,
    ...(rel?.kind === 'manyToMany' && e.action === 'link' ? { targetTables: [rel.table] } : {}),
  });
  return err instanceof ElementFailure ? locate(problem, { index: err.index }) : problem;
}
