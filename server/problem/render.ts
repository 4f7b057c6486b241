// Renders an ApiError as an RFC 9457 problem document (application/problem+json): type is
// `{docsUrl}/errors/<slug>`, instance the request path; the problem's own headers go along.
import type { ApiError } from './types.ts';

export interface ProblemContext {
  docsUrl: string;
  /** The request path (the problem's `instance`); absent when the request was refused before its path was known. */
  instance?: string;
}

export function problemBody(err: ApiError, ctx: ProblemContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: `${ctx.docsUrl.replace(/\/+$/, '')}/errors/${err.slug}`,
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

export function renderProblem(err: ApiError, ctx: ProblemContext): Response {
  const body = JSON.stringify(problemBody(err, ctx));
  // Its length said, so compression leaves a document under its threshold alone (as it does any sized body under 1 KB).
  const headers = new Headers({ 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), ...err.extra.headers });
  return new Response(body, { status: err.status, headers });
}
