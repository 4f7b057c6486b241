// The one place an error becomes an RFC 9457 problem document (application/problem+json): an ApiError as it is, a
// database error through the SQLSTATE table (problem/database.ts), anything else a 500; type is `{docsUrl}/errors/<slug>`,
// instance the request path, and the problem's own headers go along. Every writer of a problem calls it.
import { problemFromDatabase, type ErrorContext } from './database.ts';
import { ApiError, DatabaseFailure } from './types.ts';

export type { ErrorContext };

const PROBLEM_JSON = 'application/problem+json';

export interface ProblemContext {
  /** Where the problem types are documented; absent: every type is `about:blank`. */
  docsUrl?: string;
  /** The request path (the problem's `instance`); absent when the request was refused before its path was known. */
  instance?: string;
}

/**
 * The problem for `err`: an ApiError as it is; a database error (or a DatabaseFailure's cause) mapped with what
 * `scope` says of the statement's tables and caller; anything else, or a database error without a scope, 500.
 */
export function problemOf(err: unknown, scope?: ErrorContext): ApiError {
  if (err instanceof ApiError) return err;
  const cause = err instanceof DatabaseFailure ? err.cause : err;
  if (!scope) return new ApiError('internal', 'The request failed because of an internal error.', {}, { cause });
  return problemFromDatabase(cause, scope);
}

export function problemBody(err: ApiError, ctx: ProblemContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: ctx.docsUrl === undefined ? 'about:blank' : `${ctx.docsUrl.replace(/\/+$/, '')}/errors/${err.slug}`,
    title: err.title,
    status: err.status,
    code: err.code,
    detail: err.message,
  };
  if (err.extra.hint) body.hint = err.extra.hint;
  if (ctx.instance) body.instance = ctx.instance;
  if (err.extra.errors) body.errors = err.extra.errors;
  return { ...body, ...err.extra.members };
}

/** The document as text and its media type, for answers written outside a Response (a socket, a health check). */
export function problemText(err: ApiError, ctx: ProblemContext): { text: string; contentType: string } {
  return { text: JSON.stringify(problemBody(err, ctx)), contentType: PROBLEM_JSON };
}

/** The document as a batch's outcome holds it: status, headers, and the body as an object. */
export function problemResult(err: ApiError, ctx: ProblemContext): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  return { status: err.status, headers: { 'Content-Type': PROBLEM_JSON, ...err.extra.headers }, body: problemBody(err, ctx) };
}

export function renderProblem(err: ApiError, ctx: ProblemContext): Response {
  const body = JSON.stringify(problemBody(err, ctx));
  // Its length said, so compression leaves a document under its threshold alone (as it does any sized body under 1 KB).
  const headers = new Headers({ 'Content-Type': PROBLEM_JSON, 'Content-Length': String(Buffer.byteLength(body)), ...err.extra.headers });
  return new Response(body, { status: err.status, headers });
}
