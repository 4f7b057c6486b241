// POST {basePath}/batch: the operations of one body in one transaction, all or nothing. Each operation is
// routed, parsed, planned, run and shaped by the code that serves it as a request of its own; the answer
// is 200 with each one's status, headers and body (its text as written: server/batch/answers.ts), or the first
// failure's problem with its number.
import type { Sql } from 'postgres';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { OPERATIONS } from '../../compiler/query/operations.ts';
import type { Attachment } from '../files/attach.ts';
import type { Files } from '../files/service.ts';
import type { Pool } from '../pg/pools.ts';
import { endpointAt } from '../plan/endpoint.ts';
import { planRequest, type Plan, type Planner } from '../plan/plan.ts';
import { routeTemplate, type RouteIndex } from '../plan/routes.ts';
import type { MergedDocuments } from '../plan/validate.ts';
import { problemResult } from '../problem/render.ts';
import { dispatchInBatch } from '../stages/dispatch.ts';
import { requestProblem } from '../stages/problem.ts';
import { ApiError, badRequest, fromDatabase, locate } from '../problem/types.ts';
import { holdKey, keepAnswer, transaction, type TransactionCall } from '../query/dispatch.ts';
import { callerKey } from '../request/caller.ts';
import { exactCopy, JsonText, responseText } from '../codec/json.ts';
import type { Identity } from '../request/auth.ts';
import type { Once } from '../request/idempotency.ts';
import { parseOperation } from '../request/parse.ts';
import { routeSegments } from '../request/path.ts';
import { respond } from '../response/respond.ts';
import { readOperations, type Operation } from './envelope.ts';
import { resolveBody, resolvePath } from './references.ts';
import { Answers, type OperationAnswer } from './answers.ts';

export interface BatchDeps {
  manifest: Manifest;
  routes: RouteIndex;
  planner: Planner;
  documents: MergedDocuments;
  /** The primary: a batch writes, and its reads see its own writes. */
  pool: Pool | Sql;
  files?: Files;
  /** Where 5xx causes go; clients never see them. */
  log: (message: string, err: unknown) => void;
}

export interface BatchCaller {
  identity: Identity;
  ip: string | null;
  /** The batch request's URL: signed file links use its origin. */
  requestUrl: string;
  /** Its Idempotency-Key: a kept answer is replayed, else this one is kept with the batch's writes. */
  once?: Once;
}

/** What a batch answers: a wrapper (such as an idempotency store) can keep and replay it. */
export interface BatchOutcome {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Paths below the base path that are not API operations (uploads, documents, the batch itself). */
const NOT_IN_BATCH = ['batch', '.well-known', 'openapi.json', 'api.raml', 'docs'];
const RESULT_HEADERS = ['ETag', 'Location', 'Last-Modified'];

class OperationFailure extends Error {
  constructor(readonly problem: ApiError, readonly instance: string) {
    super(problem.message, { cause: problem }); // the problem's cause is the database error, if any (a deadlock is retried)
  }
}

export type Batch = (caller: BatchCaller, body: Record<string, unknown> | undefined) => Promise<BatchOutcome>;

export function batchRunner(d: BatchDeps): Batch {
  const { basePath, docsUrl } = d.manifest.api;
  const batchPath = `${basePath}/batch`;

  const answer = (problem: ApiError, instance: string): BatchOutcome => {
    if (problem.status >= 500) d.log(`POST ${batchPath} failed with ${problem.status}`, problem.cause ?? problem);
    return problemResult(problem, { docsUrl, instance });
  };

  /** Runs operation `n` (from 1) in the transaction; `done` holds the answers before it. */
  async function runOne(op: Operation, n: number, done: Answers, caller: BatchCaller, call: TransactionCall, attachments: Attachment[],
    deadline: AbortSignal | undefined): Promise<OperationAnswer & { outbox: boolean }> {
    let plan: Plan | undefined;
    let instance = batchPath;
    try {
      const bodies = done.body;
      const path = resolvePath(op.path, bodies, n, d.planner.limits.maxHeaderBytes);
      const q = path.indexOf('?');
      const below = q < 0 ? path : path.slice(0, q);
      const route = below === basePath || below.startsWith(`${basePath}/`) ? below : basePath + below;
      instance = route;
      const first = routeSegments(route, basePath)?.[0];
      let endpoint;
      try {
        endpoint = endpointAt(d.routes, basePath, route, op.method);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404 && first !== undefined && NOT_IN_BATCH.includes(first)) {
          throw badRequest(`${route} cannot be an operation of a batch: a batch holds API operations only.`);
        }
        throw err;
      }
      if (op.body !== undefined && OPERATIONS[endpoint.action].body === 'none') {
        throw badRequest(`${op.method} ${basePath}${routeTemplate(endpoint)} takes no body.`);
      }
      const text = op.body === undefined ? undefined : responseText(resolveBody(exactCopy(op.body), bodies, n, d.planner.limits.maxBodyBytes));
      const url = new URL(route + (q < 0 ? '' : path.slice(q)), caller.requestUrl);
      // The same parse, plan and dispatch as a request of its own: from the operation's method, path, headers and body.
      const request = parseOperation(endpoint.action, url, new Headers(op.headers), text, caller, d.planner.limits);
      plan = planRequest(d.planner, endpoint, request);
      const { result, outbox } = await dispatchInBatch({
        documents: d.documents, ...(d.files ? { files: d.files } : {}), call, attachments, deadline, requestUrl: caller.requestUrl,
      }, plan, request);
      const res = respond(plan, result, request.validators, basePath);
      const headers = Object.fromEntries(RESULT_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)!]] : [])));
      return { status: res.status, headers, text: await res.text(), outbox };
    } catch (err) {
      throw new OperationFailure(locate(requestProblem(err, plan, caller.identity, d.manifest), { operation: n }), instance);
    }
  }

  return async (caller, body) => {
    const attachments: Attachment[] = [];
    try {
      const ops = readOperations(body, d.planner.limits.maxBatchOperations);
      const maxAnswer = d.planner.limits.maxBatchResponseBytes;
      let outbox = false;
      // Storage calls end with the transaction's time (STATEMENT_TIMEOUT_MS from its start, a retry's included):
      // a stalled storage service must not hold the batch's row locks.
      let deadline: AbortSignal | undefined;
      const outcome = await transaction(d.pool, async (call, tx): Promise<BatchOutcome> => {
        outbox = false;
        deadline ??= d.files?.deadline();
        const kept = caller.once ? await holdKey(tx, caller.once) as BatchOutcome | undefined : undefined;
        if (kept) return { ...kept, headers: { ...kept.headers, 'Idempotent-Replayed': 'true' } };
        // Each answer is counted as it comes, and the next operation runs only while they are within the limit.
        const done = new Answers(maxAnswer);
        for (const [i, op] of ops.entries()) {
          const { outbox: queued, ...answer } = await runOne(op, i + 1, done, caller, call, attachments, deadline);
          done.add(i + 1, answer);
          outbox ||= queued;
        }
        const answered = { status: 200, headers: { 'Content-Type': 'application/json' }, body: done.answer() };
        if (caller.once) {
          await keepAnswer(tx, caller.once, new JsonText(`{"status":200,"headers":${JSON.stringify(answered.headers)},"body":${answered.body.text}}`));
        }
        return answered;
      }, {
        // A deadlock rolled the first attempt back (nothing of it was kept): its file copies go before the
        // second attempt makes its own, from the uploads still there (they go only after a commit).
        beforeRetry: async () => { await Promise.all(attachments.splice(0).map((a) => a.undo())); },
        caller: callerKey(caller.identity, caller.ip),
      });
      d.files?.committed({ outbox });
      return outcome;
    } catch (err) {
      await Promise.all(attachments.map((a) => a.undo()));
      if (err instanceof OperationFailure) return answer(err.problem, err.instance);
      // Begin or commit failed: no operation to blame.
      return answer(requestProblem(fromDatabase(err), undefined, caller.identity, d.manifest), batchPath);
    }
  };
}
