// The names of the request roles (anon, authenticated) and of the gateway's login (authenticator): the defaults,
// or the environment's (a prefix or one name each), carried into the compiled SQL so APIs on one cluster keep apart.
import { ident, literal, MAX_IDENTIFIER_BYTES } from './ident.ts';

export interface RoleNames {
  /** Callers without a token. */
  anon: string;
  /** Callers with a verified token. */
  authenticated: string;
  /** The gateway's login: NOINHERIT, a member of both, able to do nothing but switch into them. */
  authenticator: string;
}

type Role = keyof RoleNames;
const ROLES: Role[] = ['anon', 'authenticated', 'authenticator'];

export const DEFAULT_ROLES: Readonly<RoleNames> = Object.freeze({ anon: 'anon', authenticated: 'authenticated', authenticator: 'authenticator' });

/** The variables that name them: a prefix of all three's default names, and one per role, which wins over the prefix. */
export const ROLE_PREFIX_ENV = 'DB_ROLE_PREFIX';
export const ROLE_ENV: Readonly<Record<Role, string>> = Object.freeze({
  anon: 'DB_ANON_ROLE', authenticated: 'DB_AUTHENTICATED_ROLE', authenticator: 'DB_AUTHENTICATOR_ROLE',
});

/** A role name the environment gave that cannot be one; its message names the variable. */
export class RoleNameError extends Error {}

/** The role names the environment sets (an empty variable counts as unset); the defaults without any. */
export function roleNamesFromEnv(env: NodeJS.ProcessEnv = process.env): RoleNames {
  const prefix = env[ROLE_PREFIX_ENV] ?? '';
  const names = {} as RoleNames;
  const from = {} as Record<Role, string>; // the variable that named each
  for (const role of ROLES) {
    const own = env[ROLE_ENV[role]];
    names[role] = own || prefix + DEFAULT_ROLES[role];
    from[role] = own ? ROLE_ENV[role] : prefix ? `${ROLE_PREFIX_ENV} (for ${role})` : `The default ${role} role`;
    const why = problem(names[role]);
    if (why) {
      const what = own ? `${ROLE_ENV[role]}=${own} is not a role name` : `${ROLE_PREFIX_ENV}=${prefix} makes the role name "${names[role]}", which is not one`;
      throw new RoleNameError(`${what} modelapi can use: ${why}.`);
    }
  }
  for (const [i, a] of ROLES.entries()) {
    for (const b of ROLES.slice(i + 1)) {
      if (names[a] === names[b]) {
        throw new RoleNameError(`${from[a]} and ${from[b].replace(/^The/, 'the')} both name the role "${names[a]}": the three roles need three names.`);
      }
    }
  }
  return names;
}

function problem(name: string): string | undefined {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) return 'a name is lowercase letters, digits and _, not starting with a digit';
  if (name.length > MAX_IDENTIFIER_BYTES) return `a name is at most ${MAX_IDENTIFIER_BYTES} bytes`;
  if (name.startsWith('pg_')) return 'names starting with pg_ are reserved by PostgreSQL';
  if (name === 'public' || name === 'none') return `"${name}" is reserved by PostgreSQL`;
  return undefined;
}

/** A role in SQL text: a default name bare, as scripts always wrote it; any other quoted, so no keyword trips it. */
export function roleSql(name: string): string {
  return (Object.values(DEFAULT_ROLES) as string[]).includes(name) ? name : ident(name);
}

/** The two request roles, as GRANT … TO and CREATE POLICY … TO take them. */
export const requestRoles = (roles: RoleNames) => `${roleSql(roles.anon)}, ${roleSql(roles.authenticated)}`;

/** Whether the names are the defaults (the script is then exactly what it was before names were configurable). */
export const areDefault = (roles: RoleNames) => ROLES.every((r) => roles[r] === DEFAULT_ROLES[r]);

/**
 * The kit's text (compiler/sql/*.sql, where every whole word anon, authenticated or authenticator is a role) with
 * the given names: a quoted literal ('anon') becomes the name's literal, a bare word the role in SQL. Never applied
 * to SQL made from a model, whose properties may be called anon.
 */
export function renameRoles(kit: string, roles: RoleNames): string {
  if (areDefault(roles)) return kit;
  return kit.replace(/'(anon|authenticated|authenticator)'|\b(anon|authenticated|authenticator)\b/g,
    (_, quoted?: Role, bare?: Role) => (quoted ? literal(roles[quoted]) : roleSql(roles[bare!])));
}
