// Checks that a reply is an RFC 9457 problem document shaped as design.md section 5 says:
// application/problem+json, type `{docsUrl}/errors/<slug>`, title, status, code, detail, instance.
import * as assert from 'uvu/assert';
import type { Reply } from './http.ts';

/** design.md's error table: code -> slug. */
export const SLUGS: Record<string, string> = {
  E_BAD_REQUEST: 'bad-request',
  E_UNAUTHENTICATED: 'unauthenticated',
  E_FORBIDDEN: 'forbidden',
  E_NOT_FOUND: 'not-found',
  E_CONCURRENCY_CONFLICT: 'conflict',
  E_UNIQUE_VIOLATION: 'unique-violation',
  E_PRECONDITION_FAILED: 'precondition-failed',
  E_PAYLOAD_TOO_LARGE: 'payload-too-large',
  E_UNSUPPORTED_MEDIA_TYPE: 'unsupported-media-type',
  E_VALIDATION_ERROR: 'validation-error',
};

/** The code each status has in the table when it has only one. */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'E_BAD_REQUEST', 401: 'E_UNAUTHENTICATED', 403: 'E_FORBIDDEN', 404: 'E_NOT_FOUND',
  412: 'E_PRECONDITION_FAILED', 413: 'E_PAYLOAD_TOO_LARGE', 415: 'E_UNSUPPORTED_MEDIA_TYPE', 422: 'E_VALIDATION_ERROR',
};

/** What is wrong with `reply` as a problem document (empty: nothing). Never throws. */
export function problemIssues(reply: Reply, docsUrl: string, expectedCode?: string): string[] {
  const issues: string[] = [];
  const type = reply.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/problem+json')) issues.push(`content-type is "${type}"`);
  const b = reply.body;
  if (!b || typeof b !== 'object' || Array.isArray(b)) return [...issues, `body is not a JSON object: ${reply.text.slice(0, 200)}`];
  if (b.status !== reply.status) issues.push(`status field ${String(b.status)} differs from HTTP ${reply.status}`);
  if (typeof b.title !== 'string' || b.title === '') issues.push('no title');
  if (typeof b.detail !== 'string' || b.detail === '') issues.push('no detail');
  if (b.instance !== reply.path) issues.push(`instance ${JSON.stringify(b.instance)} is not the request path ${reply.path}`);
  const code = expectedCode ?? CODE_BY_STATUS[reply.status];
  if (typeof b.code !== 'string' || !/^E_[A-Z_]+$/.test(b.code)) issues.push(`code ${JSON.stringify(b.code)}`);
  else if (code && b.code !== code) issues.push(`code ${b.code}, expected ${code}`);
  const prefix = `${docsUrl.replace(/\/+$/, '')}/errors/`;
  if (typeof b.type !== 'string' || !b.type.startsWith(prefix) || !/^[a-z0-9-]+$/.test(b.type.slice(prefix.length))) {
    issues.push(`type ${JSON.stringify(b.type)} is not ${prefix}<slug>`);
  } else if (typeof b.code === 'string' && SLUGS[b.code] && b.type !== prefix + SLUGS[b.code]) {
    issues.push(`type ${b.type}, expected ${prefix}${SLUGS[b.code]}`);
  }
  if (/\bat .+\.(ts|js):\d+|SQLSTATE|syntax error at or near|PL\/pgSQL function|app\.[a-z_]+_write_rules|lib\.[a-z_]+\(/i.test(reply.text)) {
    issues.push(`the body shows internals: ${reply.text.slice(0, 200)}`);
  }
  return issues;
}

export interface ProblemExpectation {
  code?: string;
  /** Strings the detail must contain (the property, operator or parameter it names). */
  names?: string[];
}

/** Asserts the status and the problem document; returns the body for further checks. */
export function assertProblem(reply: Reply, status: number, docsUrl: string, expect: ProblemExpectation = {}): any {
  assert.is(reply.status, status, `expected ${status} for ${reply.path}, got ${reply.status}: ${reply.text.slice(0, 400)}`);
  const issues = problemIssues(reply, docsUrl, expect.code);
  assert.equal(issues, [], `problem document of ${reply.path}: ${issues.join('; ')}`);
  for (const name of expect.names ?? []) {
    assert.ok(String(reply.body.detail).includes(name), `detail should name "${name}": ${reply.body.detail}`);
  }
  return reply.body;
}

/** The 422 `errors` list, each entry checked to be {property, rule, message} strings. */
export function fieldErrors(reply: Reply): Array<{ property: string; rule: string; message: string }> {
  const errors = reply.body?.errors;
  assert.ok(Array.isArray(errors) && errors.length > 0, `a 422 lists errors: ${reply.text.slice(0, 400)}`);
  for (const e of errors) {
    assert.type(e.property, 'string');
    assert.type(e.rule, 'string');
    assert.type(e.message, 'string');
  }
  return errors;
}

/** Asserts that `errors` holds an entry for `property` (and `rule`, when given). */
export function assertFieldError(reply: Reply, property: string, rule?: string): void {
  const errors = fieldErrors(reply);
  const hit = errors.some((e) => e.property === property && (rule === undefined || e.rule === rule));
  assert.ok(hit, `errors should name ${property}${rule ? ` (${rule})` : ''}: ${JSON.stringify(errors)}`);
}
