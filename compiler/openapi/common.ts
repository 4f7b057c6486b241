// Building blocks every generated OpenAPI document shares: the RFC 9457 problem schema and the error
// responses that use it, paging metadata, the concurrency headers and parameters, bearer security.
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../query/operations.ts';
import { COUNT_MODES, DEFAULT_PER_PAGE, ESTIMATE_EXACT_BELOW, MAX_CURSOR_LENGTH, MAX_PER_PAGE } from '../query/paging.ts';

export type Schema = Record<string, unknown>;

/** An opaque cursor (meta.next, meta.prev) and a count mode, as parameters and search-body members take them. */
export const CURSOR: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: MAX_CURSOR_LENGTH };
export const COUNT: Schema = { type: 'string', enum: [...COUNT_MODES], default: COUNT_MODES[0] };

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });
export const paramRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });
export const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const PROBLEM_TYPE = 'application/problem+json';

const problemSchemas: Record<string, Schema> = {
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem document; every error response has this body (application/problem+json).',
    properties: {
      type: { type: 'string', format: 'uri', description: '`{docsUrl}/errors/<slug>`' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      code: { type: 'string', examples: ['E_NOT_FOUND'] },
      detail: { type: 'string' },
      hint: { type: 'string' },
      instance: { type: 'string', description: 'The request path.' },
      errors: { type: 'array', items: ref('FieldError'), description: 'On 422: every rule the input broke.' },
      operation: { type: 'integer', minimum: 1, description: 'Batch: the number (from 1) of the operation that failed; nothing was written.' },
      index: { type: 'integer', minimum: 0, description: 'Bulk create: the index (from 0) of the element that failed; nothing was written.' },
    },
    required: ['type', 'title', 'status', 'code', 'detail'],
  },
  FieldError: {
    type: 'object',
    properties: { property: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } },
    required: ['property', 'rule', 'message'],
  },
  PageMeta: {
    type: 'object',
    properties: {
      total: { type: 'integer', minimum: 0, description: 'Number of matching records: exact, or scaled from a sample when `count` says estimated; absent with count=none.' },
      count: { type: 'string', enum: [...COUNT_MODES], description: 'How `total` was found.' },
      page: { type: 'integer', minimum: 1, description: 'The page number of an offset page (absent on a cursor page).' },
      per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
      next: { type: 'string', description: 'Cursor of the page after this one (give it as `after`); absent on the last page.' },
      prev: { type: 'string', description: 'Cursor of the page before this one (give it as `before`); absent on the first page.' },
    },
    required: ['per_page', 'count'],
  },
  ChangeEvent: {
    type: 'object',
    description: 'The `data:` of a change-stream event (a list URL asked for with Accept: text/event-stream). The event\'s `id:` is its log position (give it back as Last-Event-ID or `after`), its `event:` the action, or `reset` when the position asked for was pruned (fetch the list again).',
    properties: {
      collection: { type: 'string' },
      id: { type: 'string', description: 'The record\'s key.' },
      action: { type: 'string', enum: ['created', 'updated', 'deleted', 'restored', 'linked', 'unlinked'] },
      etag: { type: ['string', 'null'], description: 'The record\'s ETag after the change (`"<version>"`), as the ETag header says it.' },
      data: { type: ['object', 'null'], description: 'The record as this change wrote it, shaped as a GET by this caller shows it (null for deleted); for linked and unlinked, `{relation, target, edge}`.' },
    },
    required: ['collection', 'id', 'action', 'etag', 'data'],
  },
};

/** [status, component name, codes, when]: the problems of the error table (docs/http-api.md, "Errors"). */
const PROBLEMS: Array<[string, string, string, string]> = [
  ['400', 'BadRequest', 'E_BAD_REQUEST', 'Malformed JSON, unknown property, filter, operator, sort key or projection, a readOnly property supplied, an immutable property or the key changed, a bad parameter.'],
  ['401', 'Unauthenticated', 'E_UNAUTHENTICATED', 'A bad, expired or unsigned bearer token (or an anonymous caller no scenario admits).'],
  ['403', 'Forbidden', 'E_FORBIDDEN', 'No access scenario admits the caller, or the record fails the winning one.'],
  ['404', 'NotFound', 'E_NOT_FOUND', 'No such record, parent, link or route.'],
  ['409', 'Conflict', 'E_CONCURRENCY_CONFLICT, E_UNIQUE_VIOLATION, E_REFERENCED, E_IDEMPOTENCY_IN_PROGRESS', 'The body version is not the stored one; a unique value is taken; the record is still referenced; a request with the same Idempotency-Key is running.'],
  ['412', 'PreconditionFailed', 'E_PRECONDITION_FAILED', 'If-Match or If-Unmodified-Since failed; fetch the record again and resend with its new ETag.'],
  ['413', 'PayloadTooLarge', 'E_PAYLOAD_TOO_LARGE', 'The request body, or one object or array in it, is over its limit (MAX_BODY_BYTES, MAX_JSON_MEMBERS, MAX_BATCH_OPERATIONS); more than 10 passwords set in one request; a batch whose answers pass MAX_BATCH_RESPONSE_BYTES.'],
  ['415', 'UnsupportedMediaType', 'E_UNSUPPORTED_MEDIA_TYPE', 'The body is not JSON.'],
  ['422', 'ValidationFailed', 'E_VALIDATION_ERROR, E_FILE_TOO_LARGE, E_FILE_TYPE_NOT_ALLOWED, E_FILE_NOT_UPLOADED, E_IDEMPOTENCY_KEY_REUSED', 'The body breaks the schema or a constraint (`errors` lists every rule broken), or the Idempotency-Key was used for another request.'],
  ['429', 'TooManyRequests', 'E_TOO_MANY_REQUESTS', 'This caller\'s other requests held its share of the database connections (POOL_CALLER_MAX) until POOL_TIMEOUT_MS, too many connections from its address (MAX_CONNECTIONS_PER_CLIENT), or more requests than RATE_LIMIT_REQUESTS in its window; retry after Retry-After seconds.'],
  ['503', 'Unavailable', 'E_UNAVAILABLE', 'The database is unreachable or overloaded.'],
];

function problemResponse(description: string, headers?: Schema): Schema {
  return { description, ...(headers ? { headers } : {}), content: { [PROBLEM_TYPE]: { schema: ref('Problem') } } };
}

/** The status -> problem response references for an operation; `extra` adds 409/412/413/415/422. */
export function errorResponses(extra: Array<'409' | '412' | '413' | '415' | '422'>): Record<string, Schema> {
  const wanted = new Set(['400', '401', '403', '404', '429', '503', ...extra]);
  const out: Record<string, Schema> = {};
  for (const [status, name] of PROBLEMS) if (wanted.has(status)) out[status] = responseRef(name);
  out.default = responseRef('Problem');
  return out;
}

export function commonComponents(): Schema {
  const responses: Record<string, Schema> = { Problem: problemResponse('Any other error, as a problem document.') };
  for (const [status, name, codes, when] of PROBLEMS) {
    const headers = status === '401' ? { 'WWW-Authenticate': header('WWWAuthenticate') }
      : status === '429' || status === '503' ? { 'Retry-After': header('RetryAfter') } : undefined;
    responses[name] = problemResponse(`${when} (${codes})`, headers);
  }
  return {
    schemas: problemSchemas,
    responses,
    headers: {
      ETag: { description: 'Strong entity tag: `"<version>"` with a Version property, else a revision token.', schema: { type: 'string' } },
      LastModified: { description: 'When the record was last written (HTTP date).', schema: { type: 'string' } },
      Location: { description: 'Path of the created record.', schema: { type: 'string' } },
      WWWAuthenticate: { description: 'Bearer error="invalid_token"', schema: { type: 'string' } },
      RetryAfter: { description: 'Seconds to wait before retrying (sent when the server knows: a pool, lock or statement timeout, a caller\'s share).', schema: { type: 'string' } },
    },
    parameters: {
      IfMatch: { name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
        description: '`*` or a list of entity-tags (compared strongly; a weak W/ tag never matches). A mismatch is 412.' },
      IfUnmodifiedSince: { name: 'If-Unmodified-Since', in: 'header', required: false, schema: { type: 'string' },
        description: 'HTTP date; 412 when the record changed after it. Ignored when If-Match is present.' },
      IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
        description: 'Makes a retry safe: the first successful answer is kept for the caller and replayed (Idempotent-Replayed: true) to a retry of the same request; the key with another request is 422, while the first runs 409.' },
      IfNoneMatch: { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
        description: '`*` or entity-tags; a match answers 304 Not Modified without a body.' },
      IfModifiedSince: { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' },
        description: 'HTTP date; 304 Not Modified when the record has not changed since (to the second). Ignored when If-None-Match is present.' },
      Page: { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 2147483647, default: 1 } },
      PerPage: { name: 'per_page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
        description: 'At most 100 (more is 400).' },
      After: { name: 'after', in: 'query', required: false, schema: CURSOR,
        description: 'Keyset paging: the page after this cursor (`meta.next`), with the same sort and filters. Excludes `page` and `before`. On a change stream: the event id to resume after (as Last-Event-ID).' },
      LastEventId: { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^[0-9]+-[0-9]+$' },
        description: 'Change stream only: resume after this event id, replaying what was missed in order (an id older than EVENTS_RETENTION_SECONDS starts with `event: reset`). Wins over `after`.' },
      Before: { name: 'before', in: 'query', required: false, schema: CURSOR,
        description: 'Keyset paging: the page before this cursor (`meta.prev`), with the same sort and filters. Excludes `page` and `after`.' },
      Count: { name: 'count', in: 'query', required: false, schema: COUNT,
        description: `How meta.total is found: exact (count every match), estimated (scaled from a block sample of the matches on large tables, exact under ${ESTIMATE_EXACT_BELOW}), none.` },
    },
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
        description: 'HS256 token with the claims sub, email, roles, org, org_roles, enterprise, enterprise_roles. Without it the caller is anonymous.' },
    },
  };
}

