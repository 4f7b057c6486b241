// Reads a batch body, {"operations": [{method, path, body?, headers?}, …]}, into checked operations:
// anything else is 400 naming the operation (numbered from 1), more operations than the limit 413.
import { ApiError, badRequest, locate } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

export const BATCH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The request headers an operation may carry: its preconditions. */
export const BATCH_HEADERS = ['If-Match', 'If-Unmodified-Since'] as const;
/** What an HTTP field value may hold (RFC 9110 5.5): visible ASCII, spaces and tabs, and obs-text (one byte each). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface Operation {
  method: (typeof BATCH_METHODS)[number];
  /** Below the API's base path (`/posts/1`), or with it; a query string may follow. */
  path: string;
  /** The operation's JSON body as sent (references not yet resolved); absent when it has none. */
  body?: unknown;
  headers: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function readOperations(body: Record<string, unknown> | undefined, max: number): Operation[] {
  if (!body) throw badRequest('A batch needs a JSON body: {"operations": [{"method": …, "path": …}, …]}.');
  const extra = Object.keys(body).find((k) => k !== 'operations');
  if (extra !== undefined) throw badRequest(`Unknown member "${extra}" in the batch body; it holds "operations" only.`);
  const list = body.operations;
  if (!Array.isArray(list)) throw badRequest('"operations" must be an array of operations.');
  if (list.length === 0) throw badRequest('"operations" is empty: a batch needs at least one operation.');
  if (list.length > max) {
    throw new ApiError('payloadTooLarge', `The batch holds ${list.length} operations; at most ${max} run in one batch (${LIMITS.maxBatchOperations.env}).`);
  }
  return list.map((op, i) => {
    try {
      return readOperation(op);
    } catch (err) {
      throw err instanceof ApiError ? locate(err, { operation: i + 1 }) : err;
    }
  });
}

function readOperation(op: unknown): Operation {
  if (!isObject(op)) throw badRequest('An operation must be an object {method, path, body?, headers?}.');
  const extra = Object.keys(op).find((k) => !['method', 'path', 'body', 'headers'].includes(k));
  if (extra !== undefined) throw badRequest(`Unknown member "${extra}" in an operation; it takes method, path, body and headers.`);
  const method = typeof op.method === 'string' ? op.method.toUpperCase() : undefined;
  if (!method || !(BATCH_METHODS as readonly string[]).includes(method)) {
    throw badRequest(`An operation's "method" must be one of ${BATCH_METHODS.join(', ')}.`);
  }
  if (typeof op.path !== 'string' || !op.path.startsWith('/')) throw badRequest('An operation\'s "path" must be a string starting with "/".');
  const headers: Record<string, string> = {};
  if (op.headers !== undefined) {
    if (!isObject(op.headers)) throw badRequest('An operation\'s "headers" must be an object of header names and string values.');
    for (const [name, value] of Object.entries(op.headers)) {
      const known = BATCH_HEADERS.find((h) => h.toLowerCase() === name.toLowerCase());
      if (!known) throw badRequest(`Header "${name}" cannot be given to an operation; only ${BATCH_HEADERS.join(' and ')} can.`);
      if (typeof value !== 'string') throw badRequest(`Header "${name}" must be a string.`);
      if (!FIELD_VALUE.test(value)) {
        throw badRequest(`Header "${name}" holds a character no HTTP header value can: a control character (such as CR, LF or NUL) or one past \\u00ff.`);
      }
      if (headers[known] !== undefined) throw badRequest(`Header "${known}" is given twice.`);
      headers[known] = value;
    }
  }
  return { method: method as Operation['method'], path: op.path, headers, ...(op.body !== undefined ? { body: op.body } : {}) };
}
