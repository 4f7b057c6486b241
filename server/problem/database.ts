// Turns an error raised by the one api.dispatch call into a problem: PTnnn refusals keep their
// message (written for clients); PostgreSQL's own errors are described from their fields, never echoed.
import type { Manifest } from '../../compiler/manifest/types.ts';
import { ApiError, busy, withoutStack, type FieldError, type ProblemKind } from './types.ts';
import { CONNECTION_CODES, dataExceptionDetail, LOCK_NOT_AVAILABLE, statusFor } from './sqlstate.ts';

export interface ErrorContext {
  manifest: Manifest;
  anonymous: boolean;
  /** Tables whose own foreign keys a write may break (422 references); others still refer (409). */
  ownTables: string[];
  /** A delete can only break references to the row, never its own (409 even on a self-reference). */
  deleting?: boolean;
  /** Tables whose broken foreign key means the addressed target does not exist (link: 404). */
  targetTables?: string[];
  /** The wire name of a column of the addressed table (web.name), for columns PostgreSQL names. */
  wireName?: (column: string) => string;
}

interface DbError { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown; constraint_name?: unknown; column_name?: unknown; table_name?: unknown }

const KIND_BY_STATUS: Record<number, ProblemKind> = {
  400: 'badRequest', 401: 'unauthenticated', 403: 'forbidden', 404: 'notFound', 409: 'conflict',
  412: 'preconditionFailed', 413: 'payloadTooLarge', 415: 'unsupportedMediaType', 422: 'validation', 429: 'tooManyRequests', 503: 'unavailable',
};


/** The problem for `err`; a 500 (status >= 500 in general) is for the caller to log. */
export function problemFromDatabase(err: unknown, ctx: ErrorContext): ApiError {
  const e = (err ?? {}) as DbError;
  const code = typeof e.code === 'string' ? e.code : '';
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  if (CONNECTION_CODES.has(code)) return new ApiError('unavailable', 'The database is not answering; try again later.', {}, { cause: err });
  if (!/^[0-9A-Z]{5}$/.test(code)) return new ApiError('internal', 'The request failed because of an internal error.', {}, { cause: err });

  const status = statusFor(code, ctx.anonymous);
  const constraint = findConstraint(ctx.manifest, text(e.constraint_name));
  const table = text(e.table_name)?.split('.').pop();
  if (code.startsWith('PT') && status < 500) return withoutStack(() => refusal(code, status, text(e.message) ?? '', text(e.detail), text(e.hint)));

  switch (code) {
    case '23505': {
      const what = constraint ? `"${constraint.property}"` : 'A unique property';
      return new ApiError('uniqueViolation', `${what} must be unique: another record already has this value.`);
    }
    case '23514': {
      const property = constraint?.property ?? 'record', rule = constraint?.rule ?? 'check';
      return new ApiError('validation', `"${property}" breaks its ${rule} rule.`, { errors: [{ property, rule, message: ruleMessage(property, rule) }] });
    }
    case '23502': {
      const column = text(e.column_name);
      const property = column ? (ctx.wireName?.(column) ?? column) : 'record';
      return new ApiError('validation', `"${property}" is required.`, { errors: [{ property, rule: 'required', message: `${property} is required` }] });
    }
    case '23001':
    case '23503': {
      const property = constraint?.property ?? 'record';
      if (table && ctx.targetTables?.some((t) => bare(t) === table)) return new ApiError('notFound', 'The record to link does not exist.');
      if (code === '23503' && !ctx.deleting && table && ctx.ownTables.some((t) => bare(t) === table)) {
        return new ApiError('validation', `"${property}" refers to a record that does not exist.`, {
          errors: [{ property, rule: 'references', message: `${property} refers to a record that does not exist` }],
        });
      }
      return new ApiError('referenced', `The record is still referenced${constraint ? ` by "${property}" of ${table ?? 'another record'}` : ''}; remove those references first.`);
    }
    case '42501':
      return ctx.anonymous
        ? new ApiError('unauthenticated', 'Sign in to do this.', { headers: { 'WWW-Authenticate': 'Bearer' } })
        : new ApiError('forbidden', 'You are not allowed to do this.');
    case '428C9':
      return new ApiError('badRequest', 'A readOnly property was supplied.');
  }
  if (status === 400) return new ApiError('badRequest', dataExceptionDetail(code));
  if (status === 413) return new ApiError('payloadTooLarge', 'A value is too large to be stored or indexed.');
  if (status === 409) return new ApiError('conflict', 'The request conflicts with existing data.');
  if (status === 503) {
    const detail = code === '57014' ? 'The request ran out of time (STATEMENT_TIMEOUT_MS); try again.'
      : code === LOCK_NOT_AVAILABLE ? 'The record is locked by another request (LOCK_TIMEOUT_MS ran out); try again.'
      : code.startsWith('28') ? 'The gateway cannot log in to the database; try again later.'
      : 'The database is busy; try again.';
    return busy(detail, err);
  }
  return new ApiError('internal', 'The request failed because of an internal error.', {}, { cause: err });
}

/** A PTnnn raised by our SQL: message and hint are the problem's; DETAIL is JSON. */
function refusal(code: string, status: number, message: string, detail: string | undefined, hint: string | undefined): ApiError {
  const kind = KIND_BY_STATUS[status] ?? 'badRequest';
  const info = parseJson(detail);
  const extra: { errors?: FieldError[]; hint?: string; headers?: Record<string, string> } = {};
  if (hint) extra.hint = hint;
  if (status === 401) extra.headers = { 'WWW-Authenticate': 'Bearer' };
  // When to ask again: the seconds the refusal's DETAIL names (retry_after), else one.
  if (status === 429) extra.headers = { 'Retry-After': String(Number.isInteger(info.retry_after) && Number(info.retry_after) > 0 ? info.retry_after : 1) };
  if (status === 422) {
    const listed = Array.isArray(info.errors) ? info.errors.filter(isFieldError) : [];
    const single = typeof info.property === 'string' && typeof info.rule === 'string'
      ? [{ property: info.property, rule: info.rule, message: typeof info.message === 'string' ? info.message : message }] : [];
    extra.errors = [...listed, ...single];
  }
  const own = typeof info.code === 'string' && /^E_[A-Z_]+$/.test(info.code) ? info.code : undefined;
  return own ? ApiError.custom(kind, own, message, extra) : new ApiError(kind, message, extra);
}

function findConstraint(manifest: Manifest, name: string | undefined) {
  if (!name) return undefined;
  for (const r of Object.values(manifest.resources)) if (r.constraints[name]) return r.constraints[name];
  return undefined;
}

const RULE_TEXT: Record<string, string> = {
  minimum: 'is below its minimum', maximum: 'is above its maximum', exclusiveMinimum: 'is not above its minimum',
  exclusiveMaximum: 'is not below its maximum', multipleOf: 'is not a multiple of its step', enum: 'is not one of the allowed values',
  pattern: 'does not match its pattern', email: 'is not a valid email address', file: 'is not a valid file reference',
};
const ruleMessage = (property: string, rule: string) => `${property} ${RULE_TEXT[rule] ?? `breaks its ${rule} rule`}`;

const bare = (t: string) => t.split('.').pop();

function parseJson(text: string | undefined): Record<string, unknown> {
  try {
    const v: unknown = text ? JSON.parse(text) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isFieldError(v: unknown): v is FieldError {
  const o = v as Record<string, unknown> | null;
  return !!o && typeof o.property === 'string' && typeof o.rule === 'string' && typeof o.message === 'string';
}
