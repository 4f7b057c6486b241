// Idempotency-Key on writes sent with POST or PATCH (IETF draft-ietf-httpapi-idempotency-key-header):
// which requests take one, whose key it is, and the fingerprint a retry must match to be replayed.
import { createHash } from 'node:crypto';
import { MAX_IDEMPOTENCY_KEY_LENGTH, OPERATIONS, onlyReads, type OperationName } from '../../compiler/query/operations.ts';
import { badRequest } from '../problem/types.ts';
import { canonicalText } from '../codec/json.ts';
import type { Identity } from './auth.ts';
import { CLAIM_TYPES } from './claims.ts';
import { callerKey } from './caller.ts';
import { take, type Parsed } from './parsed.ts';

/** A write to run at most once per caller and key. */
export interface Once {
  /** The token's `sub`; an anonymous caller's keys are its client address's. */
  caller: string;
  key: string;
  /** Of the planned call (function, arguments, projection): a retry must plan the same call. */
  fingerprint: string;
  ttlSeconds: number;
}

/** Writes whose method does not make a retry safe by itself (RFC 9110 9.2.2): POST and PATCH. */
export const takesIdempotencyKey = (action: OperationName): boolean =>
  !onlyReads(action) && (OPERATIONS[action].method === 'POST' || OPERATIONS[action].method === 'PATCH');

/**
 * The request's Idempotency-Key (parsed by the parse stage: server/request/parse.ts), when it has one and its operation
 * takes one; a malformed key is 400, raised only then.
 */
export function idempotencyOf(
  key: Parsed<string | undefined>, action: OperationName, identity: Identity, ip: string | null,
  planned: { fn: string; args: unknown; each?: unknown; projection: unknown }, ttlSeconds: number,
): Once | undefined {
  if (!takesIdempotencyKey(action)) return undefined;
  const k = take(key);
  if (k === undefined) return undefined;
  const call = () => `${planned.fn}\n${canonicalText(planned.args)}\n${canonicalText(planned.each ?? null)}\n${JSON.stringify(planned.projection)}`;
  return onceOf(k, identity, ip, call, ttlSeconds);
}

/**
 * The Idempotency-Key of a request whose content `request` (its text, written only when the header is there) a
 * retry must repeat; none without the header.
 */
export function idempotencyKey(headers: Headers, identity: Identity, ip: string | null, request: () => string, ttlSeconds: number): Once | undefined {
  const key = parseIdempotencyKey(headers.get('idempotency-key'));
  return key === undefined ? undefined : onceOf(key, identity, ip, request, ttlSeconds);
}

/** The key of a write to run once, as `identity` from `ip`. */
function onceOf(key: string, identity: Identity, ip: string | null, request: () => string, ttlSeconds: number): Once {
  return { caller: callerKey(identity, ip), key, fingerprint: fingerprintOf(identity, request), ttlSeconds };
}

/**
 * The fingerprint also holds the claims access rules read (organization, roles, email), so the same `sub`
 * acting in another organization or with other roles is another request (422), never handed the first
 * one's answer; a refreshed token (new `exp`, `iat`) is the same caller.
 */
const fingerprintOf = (identity: Identity, request: () => string): string =>
  createHash('sha256').update(request()).update('\n').update(accessClaims(identity)).digest('base64url');

/** The Idempotency-Key header as sent, checked: undefined without one, 400 for a malformed one. */
export const parseIdempotencyKey = (raw: string | null): string | undefined => (raw === null ? undefined : parseKey(raw));

/** The claims the SQL helpers read, as text (role arrays sorted: their order grants nothing). */
function accessClaims(identity: Identity): string {
  return JSON.stringify(Object.keys(CLAIM_TYPES).map((name) => {
    const v = identity.claims[name];
    return Array.isArray(v) ? [...v].sort() : v ?? null;
  }));
}

/** A plain token, or a structured-field string ("…") as the draft writes it. */
function parseKey(raw: string): string {
  const trimmed = raw.trim();
  const key = /^".*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
  if (key === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
    throw badRequest(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`);
  }
  return key;
}
