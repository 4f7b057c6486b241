// Who is calling: `Authorization: Bearer <JWT>` verified with jose (HS256 with JWT_SECRET, the gateway's own
// ES256/RS256 key, or RS256/ES256 keys from JWKS_URL; `alg: none` and key confusion refused) gives
// `authenticated`; no header gives `anon`.
import type { KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { unauthenticated } from '../problem/types.ts';
import { cachedVerifier } from './token-cache.ts';
import { CLAIM_TYPES, mapClaims, STORED_CLAIMS, type ClaimPaths } from './claims.ts';
import { SHORT_STRING_CHARS } from '../../compiler/ir/columns.ts';

export interface Identity {
  role: 'anon' | 'authenticated';
  claims: Record<string, unknown>;
}

export const ANONYMOUS: Identity = { role: 'anon', claims: {} };

export interface VerifierOptions {
  /** HS256 shared secret (JWT_SECRET). */
  secret?: string;
  /** A JWKS document's URL (JWT_JWKS_URL): RS256 / ES256 tokens, keys fetched and cached by jose. */
  jwksUrl?: string;
  /** When set, the token's `aud` must name it (JWT_AUDIENCE). */
  audience?: string;
  /** The public half of the gateway's own ES256/RS256 key (JWT_PRIVATE_KEY), with its `kid`. */
  ownKey?: { alg: 'ES256' | 'RS256'; publicKey: KeyObject; kid: string };
  /** Where each claim is read from (JWT_CLAIM_<NAME>); top level when absent. */
  claimPaths?: ClaimPaths;
}

export type Verify = (token: string) => Promise<Record<string, unknown>>;

/**
 * Payloads a provider's key (JWKS_URL) verified: their mapped claims come from their paths alone. Only the
 * gateway's own tokens (its signing key, or JWT_SECRET) fall back to the top-level claim of that name: a
 * provider's token without the path would otherwise pass a top-level `roles` its users may be able to set.
 */
const fromProvider = new WeakSet<object>();

export function createVerifier(opts: VerifierOptions): Verify {
  const verify = cachedVerifier(signatureVerifier(opts));
  const paths = opts.claimPaths ?? {};
  // Mapped once per verified payload, so a cached token keeps giving the same claims (and identity: identify).
  const mapped = new WeakMap<Record<string, unknown>, Record<string, unknown>>();
  return Object.keys(paths).length ? async (token) => {
    const payload = await verify(token);
    let claims = mapped.get(payload);
    if (!claims) mapped.set(payload, claims = mapClaims(payload, paths, !fromProvider.has(payload)));
    return claims;
  } : verify;
}

function signatureVerifier(opts: VerifierOptions): Verify {
  // A token without exp would never expire: a leaked one would work for ever (every token we issue has one).
  const options: JWTVerifyOptions = { requiredClaims: ['exp'], ...(opts.audience ? { audience: opts.audience } : {}) };
  const remote = opts.jwksUrl ? createRemoteJWKSet(new URL(opts.jwksUrl)) : undefined;
  const own = opts.ownKey;
  // With a JWKS URL the shared secret is not used (as before the gateway had keys of its own).
  const secret = !remote && opts.secret ? opts.secret : undefined;
  if (!remote && !own && !secret) throw new Error('a JWT secret, a private key or a JWKS URL is required');
  // Made once, as a Web Crypto key: jose 6 imports raw bytes on every call, and exports a node:crypto
  // KeyObject back to bytes first; a CryptoKey it uses as it is.
  const hmac = secret ? globalThis.crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']) : undefined;
  const algorithms = [...(hmac ? ['HS256'] : []), ...(remote ? ['RS256', 'ES256'] : own ? [own.alg] : [])];
  // The gateway's own key signs the tokens carrying its `kid`; the JWKS's keys sign the others.
  return async (token) => {
    let provider = false;
    const keyFor: JWTVerifyGetKey = async (header, jws) => {
      if (header.alg === 'HS256' && hmac) return hmac;
      if (own && (!remote || header.kid === own.kid)) return own.publicKey;
      provider = true;
      return remote!(header, jws);
    };
    const { payload } = await jwtVerify(token, keyFor, { ...options, algorithms });
    if (provider) fromProvider.add(payload);
    return payload;
  };
}

/**
 * The identity of each verified payload that passed the checks below. The token cache gives a client's next
 * request the same payload, so its identity (and its claims' text: server/query/dispatch.ts) is made once.
 */
const identities = new WeakMap<Record<string, unknown>, Identity>();

export async function identify(authorization: string | undefined, verify: Verify): Promise<Identity> {
  if (authorization === undefined) return ANONYMOUS;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization);
  if (!m) throw unauthenticated('The Authorization header must read "Bearer <token>".');
  let payload: Record<string, unknown>;
  try {
    payload = await verify(m[1]!);
  } catch (err) {
    throw unauthenticated(reason(err));
  }
  let identity = identities.get(payload);
  if (!identity) identities.set(payload, identity = checkedIdentity(payload));
  return identity;
}

/** The identity a verified payload gives, when its claims are what the API can use (else 401). */
function checkedIdentity(payload: Record<string, unknown>): Identity {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated('The token has no "sub" claim naming the caller.');
  for (const [claim, type] of Object.entries(CLAIM_TYPES) as Array<[string, 'string' | 'string[]']>) {
    const v = payload[claim];
    if (v === undefined) continue;
    const ok = type === 'string' ? typeof v === 'string' : Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (!ok) throw unauthenticated(`The token's "${claim}" claim must be ${type === 'string' ? 'a string' : 'an array of strings'}.`);
  }
  if (!storable(payload)) throw unauthenticated('The token holds text PostgreSQL cannot store (a NUL character or a lone surrogate).');
  for (const claim of STORED_CLAIMS) {
    const v = payload[claim];
    if (typeof v === 'string' && v.length > SHORT_STRING_CHARS && [...v].length > SHORT_STRING_CHARS) {
      throw unauthenticated(`The token's "${claim}" claim is longer than ${SHORT_STRING_CHARS} characters, the longest identifier this API stores.`);
    }
  }
  return { role: 'authenticated', claims: payload };
}

/** NUL, or half of a surrogate pair: jsonb refuses them, so claims holding one make the token invalid. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether every key and string of a JSON value can be held by PostgreSQL's jsonb. */
function storable(value: unknown): boolean {
  if (typeof value === 'string') return !UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.every(storable);
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => !UNSTORABLE.test(k) && storable(v));
  return true;
}

function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'The token has expired.';
  if (err instanceof errors.JWTClaimValidationFailed) return `The token's "${err.claim}" claim is not valid.`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'The token signature does not verify.';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm this API does not accept.';
  if (err instanceof errors.JWKSNoMatchingKey) return 'No key of the API signs this token.';
  return 'The token is malformed.';
}
