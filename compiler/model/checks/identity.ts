// Domain rules of `api.identity` (sign-in from the model): the user entity must have one Email and one
// Password property, and the roles, org and orgRoles sources must be properties of the right shape.
import type { Entity, Property } from '../types.ts';
import { CheckContext } from './context.ts';
import { emailProperties } from '../../modules/email.ts';
import { passwordProperties } from '../../modules/password.ts';

const RULE = 'Identity';

/** The properties of `e` carrying the login's modules, by name. */
const LOGIN = { Email: emailProperties, Password: passwordProperties };

export function checkIdentity(ctx: CheckContext): void {
  const identity = ctx.model.api.identity;
  if (!identity) return;
  const e = ctx.model.entities[identity.entity];
  if (!e) return identity.entity === undefined ? undefined : ctx.fail('/api/identity/entity', 'Unknown entity', `no entity named "${identity.entity}"`);
  for (const [module, carriers] of Object.entries(LOGIN)) {
    const found = carriers(e);
    if (found.length !== 1) {
      ctx.fail('/api/identity/entity', RULE, `${identity.entity} must have exactly one property with the ${module} module to sign users in (found ${found.length ? found.join(', ') : 'none'})`);
    }
  }
  for (const [name, other] of Object.entries(ctx.model.entities)) {
    if (other.collection === 'auth') ctx.fail(`/entities/${name}/collection`, RULE, 'the collection "auth" is taken by the sign-in endpoints (/auth/token, /auth/refresh, /auth/logout)');
  }
  const email = emailProperties(e)[0];
  if (email && !e.properties[email]!.unique && !e.properties[email]!.primary) {
    ctx.fail('/api/identity/entity', RULE, `the Email property "${email}" of ${identity.entity} must be unique: it is the login`);
  }
  if (identity.roles !== undefined) {
    const rel = e.relations?.[identity.roles];
    if (!(rel?.kind === 'manyToMany')) listProperty(ctx, e, identity.roles, '/api/identity/roles', 'roles', 'or a manyToMany relation');
  }
  if (identity.org !== undefined) {
    const p = property(ctx, e, identity.org, '/api/identity/org');
    if (p && (p.type !== 'String' || p.multiple)) ctx.fail('/api/identity/org', RULE, `"${identity.org}" must be a single String property (the org claim)`);
  }
  if (identity.orgRoles !== undefined) listProperty(ctx, e, identity.orgRoles, '/api/identity/orgRoles', 'orgRoles', '');
  if (identity.orgRoles !== undefined && identity.org === undefined) {
    ctx.fail('/api/identity/orgRoles', RULE, 'orgRoles needs org: roles in an organization need the organization');
  }
}

function property(ctx: CheckContext, e: Entity, name: string, at: string): Property | undefined {
  const p = e.properties[name];
  if (!p) ctx.fail(at, 'Unknown property', `no property "${name}" on ${ctx.model.api.identity!.entity}`);
  return p;
}

function listProperty(ctx: CheckContext, e: Entity, name: string, at: string, what: string, alternative: string): void {
  const p = property(ctx, e, name, at);
  if (p && (p.type !== 'String' || !p.multiple)) {
    ctx.fail(at, RULE, `${what} must name a multiple String property${alternative ? ` ${alternative}` : ''}; "${name}" is not`);
  }
}
