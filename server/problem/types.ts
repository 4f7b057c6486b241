// The gateway's error types, apart from how they are rendered: an ApiError carries the HTTP status,
// the problem code, slug and title, a detail written for clients, and optional errors/hint/headers.

/** One entry of a 422 `errors` list: the top-level property, the rule it broke, a readable message. */
export interface FieldError {
  property: string;
  rule: string;
  message: string;
}

export interface ProblemExtra {
  errors?: FieldError[];
  hint?: string;
  /** Response headers that belong to the problem (Allow, WWW-Authenticate). */
  headers?: Record<string, string>;
  /** Extension members (RFC 9457 3.2): where in a batch or bulk body the problem arose (`operation`, `index`). */
  members?: Record<string, unknown>;
}

/** The problems the gateway answers with: [status, code, slug, title]. */
export const PROBLEMS = {
  badRequest: [400, 'E_BAD_REQUEST', 'bad-request', 'Bad Request'],
  unauthenticated: [401, 'E_UNAUTHENTICATED', 'unauthenticated', 'Unauthorized'],
  forbidden: [403, 'E_FORBIDDEN', 'forbidden', 'Forbidden'],
  notFound: [404, 'E_NOT_FOUND', 'not-found', 'Not Found'],
  methodNotAllowed: [405, 'E_METHOD_NOT_ALLOWED', 'method-not-allowed', 'Method Not Allowed'],
  conflict: [409, 'E_CONCURRENCY_CONFLICT', 'conflict', 'Conflict'],
  uniqueViolation: [409, 'E_UNIQUE_VIOLATION', 'unique-violation', 'Unique Violation'],
  referenced: [409, 'E_REFERENCED', 'referenced', 'Record Still Referenced'],
  idempotencyInProgress: [409, 'E_IDEMPOTENCY_IN_PROGRESS', 'idempotency-in-progress', 'Request In Progress'],
  requestTimeout: [408, 'E_REQUEST_TIMEOUT', 'request-timeout', 'Request Timeout'],
  preconditionFailed: [412, 'E_PRECONDITION_FAILED', 'precondition-failed', 'Precondition Failed'],
  payloadTooLarge: [413, 'E_PAYLOAD_TOO_LARGE', 'payload-too-large', 'Payload Too Large'],
  unsupportedMediaType: [415, 'E_UNSUPPORTED_MEDIA_TYPE', 'unsupported-media-type', 'Unsupported Media Type'],
  expectationFailed: [417, 'E_EXPECTATION_FAILED', 'expectation-failed', 'Expectation Failed'],
  tooManyRequests: [429, 'E_TOO_MANY_REQUESTS', 'too-many-requests', 'Too Many Requests'],
  headersTooLarge: [431, 'E_HEADERS_TOO_LARGE', 'headers-too-large', 'Request Header Fields Too Large'],
  validation: [422, 'E_VALIDATION_ERROR', 'validation-error', 'Validation Error'],
  idempotencyKeyReused: [422, 'E_IDEMPOTENCY_KEY_REUSED', 'idempotency-key-reused', 'Idempotency Key Reused'],
  fileTooLarge: [422, 'E_FILE_TOO_LARGE', 'file-too-large', 'File Too Large'],
  fileTypeNotAllowed: [422, 'E_FILE_TYPE_NOT_ALLOWED', 'file-type-not-allowed', 'File Type Not Allowed'],
  fileNotUploaded: [422, 'E_FILE_NOT_UPLOADED', 'file-not-uploaded', 'File Not Uploaded'],
  /** Never sent: the access log's and metrics' status of a read whose client hung up (server/request/recipient.ts). */
  clientClosed: [499, 'E_CLIENT_CLOSED', 'client-closed', 'Client Closed Request'],
  internal: [500, 'E_INTERNAL', 'internal-error', 'Internal Server Error'],
  unavailable: [503, 'E_UNAVAILABLE', 'unavailable', 'Service Unavailable'],
} as const satisfies Record<string, readonly [number, string, string, string]>;

export type ProblemKind = keyof typeof PROBLEMS;

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly slug: string;
  readonly title: string;

  constructor(kind: ProblemKind, detail: string, readonly extra: ProblemExtra = {}, options?: { cause?: unknown }) {
    super(detail, options);
    this.name = 'ApiError';
    [this.status, this.code, this.slug, this.title] = PROBLEMS[kind];
  }

  /** A problem whose code and slug come from elsewhere (a PTnnn refusal naming its own code). */
  static custom(kind: ProblemKind, code: string, detail: string, extra: ProblemExtra = {}): ApiError {
    const err = new ApiError(kind, detail, extra);
    const known = Object.values(PROBLEMS).find(([status, c]) => c === code && status === err.status);
    const slug = known?.[2] ?? code.replace(/^E_/, '').toLowerCase().replace(/_/g, '-');
    Object.assign(err, { code, slug, ...(known ? { title: known[3] } : {}) });
    return err;
  }
}

/**
 * A statement the gateway sent outside a planned call failed (a sign-in, an upload intent, a batch's begin or commit):
 * thrown as it is, it is mapped at the boundary as a database error touching no table of the request's own.
 */
export class DatabaseFailure extends Error {
  /** `anonymous`: the statement ran as an anonymous caller whoever sent the request (a sign-in); else the request's caller. */
  constructor(cause: unknown, readonly anonymous?: boolean) {
    super('a statement failed', { cause });
    this.name = 'DatabaseFailure';
  }
}

/** `err` as a route throws it on from a statement: an ApiError as it is, anything else a DatabaseFailure. */
export const fromDatabase = (err: unknown, anonymous?: boolean): Error => (err instanceof ApiError ? err : new DatabaseFailure(err, anonymous));

/**
 * Makes an expected problem (a 4xx the database chose: a refusal, a validation) without capturing a stack: nothing
 * reads it (only a 5xx is logged), and an enumeration of hidden records sends nothing else.
 */
export function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The same problem, marked with where in a batch or bulk body it arose (extension members, outermost first). */
export function locate(err: ApiError, members: Record<string, unknown>): ApiError {
  Object.assign(err.extra, { members: { ...members, ...err.extra.members } });
  return err;
}

/** Shorthands for the problems raised while parsing and planning a request. */
export const badRequest = (detail: string) => new ApiError('badRequest', detail);
export const notFound = (detail: string) => new ApiError('notFound', detail);

export const methodNotAllowed = (method: string, allow: string[]) =>
  new ApiError('methodNotAllowed', `${method} is not allowed here; use ${allow.join(', ')}.`, {
    headers: { Allow: allow.join(', ') },
  });

/** 503 with Retry-After: the database is busy (a pool, lock or statement timeout ran out); the client may retry. */
export const busy = (detail: string, cause?: unknown) =>
  new ApiError('unavailable', detail, { headers: { 'Retry-After': '1' } }, { cause });

export const unauthenticated = (detail: string) =>
  new ApiError('unauthenticated', detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

export const validationFailed = (errors: FieldError[], detail = 'The request body breaks the schema of the resource.') =>
  new ApiError('validation', detail, { errors });
