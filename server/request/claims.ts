// The claims the SQL helpers read, and where a token holds them: by default at the top level; with
// JWT_CLAIM_<NAME> (e.g. JWT_CLAIM_ROLES=realm_access.roles) at a path, for other providers' tokens.

/** Claims the SQL helpers read, with the JSON type each must have when present (design.md 3). */
export const CLAIM_TYPES = {
  sub: 'string', email: 'string', roles: 'string[]', org: 'string', org_roles: 'string[]',
  enterprise: 'string', enterprise_roles: 'string[]',
} as const satisfies Record<string, 'string' | 'string[]'>;

export type ClaimName = keyof typeof CLAIM_TYPES;

/** Claims rows store (an Owner's sub, the organization and enterprise ids), in columns of SHORT_STRING_CHARS. */
export const STORED_CLAIMS = ['sub', 'org', 'enterprise'] as const satisfies readonly ClaimName[];

/** Per claim, the path of keys leading to it in a token's payload. */
export type ClaimPaths = Partial<Record<ClaimName, string[]>>;

/** The environment variable naming a claim's path: JWT_CLAIM_SUB, JWT_CLAIM_ORG_ROLES, … */
export const claimVariable = (claim: ClaimName) => `JWT_CLAIM_${claim.toUpperCase()}`;

/**
 * A path: keys joined by dots (`realm_access.roles`, a leading dot allowed as in PostgREST's
 * `jwt-role-claim-key`); a key holding dots or slashes in double quotes (`"https://example.com/roles"`);
 * a whole number picks an array element.
 */
export function parseClaimPath(text: string): string[] {
  const keys: string[] = [];
  const re = /(\.)?(?:"([^"]*)"|([^."]+))/y;
  const src = text.trim();
  let at = 0;
  for (let m = re.exec(src); m && (m[1] || !keys.length); m = re.exec(src)) {
    keys.push(m[2] ?? m[3]!);
    at = re.lastIndex;
  }
  if (!keys.length || at !== src.length) throw new Error(`"${text}" is not a claim path: keys joined by dots, a key with dots in double quotes`);
  return keys;
}

/** JWT_CLAIM_<NAME> for every claim that has one; a malformed path stops the start. */
export function claimPathsFromEnv(env: NodeJS.ProcessEnv): ClaimPaths {
  const paths: ClaimPaths = {};
  for (const claim of Object.keys(CLAIM_TYPES) as ClaimName[]) {
    const raw = env[claimVariable(claim)];
    if (raw) {
      try {
        paths[claim] = parseClaimPath(raw);
      } catch (err) {
        throw new Error(`${claimVariable(claim)}: ${(err as Error).message}`);
      }
    }
  }
  return paths;
}

function at(payload: unknown, path: string[]): unknown {
  let v = payload;
  for (const key of path) {
    if (Array.isArray(v) && /^\d+$/.test(key)) v = v[Number(key)];
    else if (v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, key)) v = (v as Record<string, unknown>)[key];
    else return undefined;
  }
  return v;
}

/**
 * The payload with each mapped claim read from its path; with `fallback` (the gateway's own tokens: of
 * `npm run token` and /auth/token), the top-level claim of that name where the path finds nothing. A single
 * string where a list claim is expected (a provider's one `role`) becomes a list of one.
 */
export function mapClaims(payload: Record<string, unknown>, paths: ClaimPaths, fallback = true): Record<string, unknown> {
  const entries = Object.entries(paths) as Array<[ClaimName, string[]]>;
  if (!entries.length) return payload;
  const out = { ...payload };
  for (const [claim, path] of entries) {
    let v = at(payload, path) ?? (fallback ? payload[claim] : undefined);
    if (CLAIM_TYPES[claim] === 'string[]' && typeof v === 'string') v = [v];
    if (v === undefined) delete out[claim];
    else out[claim] = v;
  }
  return out;
}
