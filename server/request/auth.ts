// Who is calling: `Authorization: Bearer <JWT>` verified with jose (HS256 only, so `alg: none` and
// key confusion are refused) gives `authenticated` with the payload as claims; no header gives `anon`.
import { errors, jwtVerify } from 'jose';
import { unauthenticated } from '../problem/types.ts';

export interface Identity {
  role: 'anon' | 'authenticated';
  claims: Record<string, unknown>;
}

export const ANONYMOUS: Identity = { role: 'anon', claims: {} };

/** Claims the SQL helpers read, with the JSON type each must have when present (design.md 3). */
const CLAIM_TYPES: Record<string, 'string' | 'string[]'> = {
  sub: 'string', email: 'string', roles: 'string[]', org: 'string', org_roles: 'string[]',
  enterprise: 'string', enterprise_roles: 'string[]',
};

export async function identify(authorization: string | undefined, key: Uint8Array): Promise<Identity> {
  if (authorization === undefined) return ANONYMOUS;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization);
  if (!m) throw unauthenticated('The Authorization header must read "Bearer <token>".');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(m[1]!, key, { algorithms: ['HS256'] }));
  } catch (err) {
    throw unauthenticated(reason(err));
  }
  for (const [claim, type] of Object.entries(CLAIM_TYPES)) {
    const v = payload[claim];
    if (v === undefined) continue;
    const ok = type === 'string' ? typeof v === 'string' : Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (!ok) throw unauthenticated(`The token's "${claim}" claim must be ${type === 'string' ? 'a string' : 'an array of strings'}.`);
  }
  return { role: 'authenticated', claims: payload };
}

function reason(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'The token has expired.';
  if (err instanceof errors.JWTClaimValidationFailed) return `The token's "${err.claim}" claim is not valid.`;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'The token signature does not verify.';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'The token must be signed with HS256.';
  return 'The token is malformed.';
}
