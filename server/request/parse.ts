// One request as the stages after parsing read it: the query string parsed and checked against the operation, the
// JSON body read and decoded, the preconditions and the Idempotency-Key parsed, and the caller. Made from an HTTP
// request (stages/parse.ts) or from a batch operation's method, path, headers and body, by the same code.
import { OPERATIONS, type OperationName } from '../../compiler/query/operations.ts';
import type { Identity } from './auth.ts';
import { checkBodyBytes, decodeJson, readJsonBody, type JsonBody } from './body.ts';
import { parseIdempotencyKey } from './idempotency.ts';
import type { RequestLimits } from './limits.ts';
import { attempt, attemptAsync, type Parsed } from './parsed.ts';
import { conditional, parsePreconditions, readValidators, type Preconditions, type ReadValidators } from './preconditions.ts';
import { parseQuery, refuseUnsupported, type RawQuery } from './query.ts';

/** Who sends a request: the verified identity and the client's address. */
export interface Caller { identity: Identity; ip: string | null }

export interface ParsedRequest {
  /** The query string: reserved parameters and filter terms, only those the operation takes. */
  query: RawQuery;
  /** The JSON body (undefined: no bytes), read only for an operation that takes one. */
  body: Parsed<JsonBody | undefined>;
  /** If-Match and If-Unmodified-Since, for the SQL to compare. */
  preconditions: Parsed<Preconditions>;
  /** Whether any precondition header was sent: the newest state is wanted (the primary). */
  conditional: boolean;
  /** If-None-Match and If-Modified-Since, for a read's 304. */
  validators: ReadValidators;
  /** The Idempotency-Key, checked where the operation takes one (server/request/idempotency.ts). */
  idempotencyKey: Parsed<string | undefined>;
  caller: Caller;
}

/** What the request's limits say of bodies and query strings. */
type Limits = Pick<RequestLimits, 'maxBodyBytes' | 'maxJsonMembers' | 'maxFilters'>;

/** A bulk create's body may be an array of objects; every other body is one object. */
const takesList = (action: OperationName) => action === 'create' || action === 'bulkCreate';

/** An HTTP request to an operation: its body is read (when the operation takes one) after its query string is checked. */
export async function parseHttp(action: OperationName, req: Request, url: URL, caller: Caller, limits: Limits): Promise<ParsedRequest> {
  const query = queryOf(action, url, limits);
  const body = OPERATIONS[action].body === 'none' ? { value: undefined }
    : await attemptAsync(() => readJsonBody(req, limits.maxBodyBytes, limits.maxJsonMembers, takesList(action)));
  return parsed(query, req.headers, body, caller);
}

/** A batch operation: its body given as JSON text (references resolved), decoded as a request's bytes would be. */
export function parseOperation(action: OperationName, url: URL, headers: Headers, text: string | undefined, caller: Caller, limits: Limits): ParsedRequest {
  const query = queryOf(action, url, limits);
  const body = text === undefined ? { value: undefined } : attempt(() => {
    checkBodyBytes(text, limits.maxBodyBytes);
    return decodeJson(text, limits.maxJsonMembers, takesList(action));
  });
  return parsed(query, headers, body, caller);
}

function queryOf(action: OperationName, url: URL, limits: Limits): RawQuery {
  const query = parseQuery(url.searchParams, limits.maxFilters);
  refuseUnsupported(query, OPERATIONS[action].query);
  return query;
}

const parsed = (query: RawQuery, headers: Headers, body: Parsed<JsonBody | undefined>, caller: Caller): ParsedRequest => ({
  query, body, caller,
  preconditions: attempt(() => parsePreconditions(headers)),
  conditional: conditional(headers),
  validators: readValidators(headers),
  idempotencyKey: attempt(() => parseIdempotencyKey(headers.get('idempotency-key'))),
});
