// Sign-in compiled for the model's `api.identity` entity: api.auth_token (password check in SQL against
// the stored bcrypt hash), api.auth_refresh, api.auth_logout, the claims a user's tokens carry
// (lib.identity_claims) and the trigger that revokes refresh tokens on a password change or deletion.
import type { Model } from '../model/types.ts';
import type { TableIR } from '../ir/types.ts';
import { AUTH_FUNCTIONS } from '../manifest/types.ts';
import { DEFINER, ident, literal, qname } from './ident.ts';
import { keyEquals, plpgsql } from './engine/shape.ts';
import { PASSWORD_COST, PASSWORD_MAX_BYTES, passwordProperties } from '../modules/password.ts';
import { emailProperties } from '../modules/email.ts';
import { requestRoles, type RoleNames } from './roles.ts';
import { ifThen } from './layout.ts';
import { primaryKeyOf } from '../model/names.ts';

const CLAIMS = 'lib.identity_claims';

/** The api.* functions of sign-in, when the model names an identity entity (dispatch lists them). */
export function identityFunctionNames(model: Model): string[] {
  return model.api.identity ? Object.values(AUTH_FUNCTIONS) : [];
}

/** `value` as a string argument, or a 400 naming it. */
const requireString = (name: string, value: string) =>
  ifThen(`jsonb_typeof(${value}) IS DISTINCT FROM 'string'`, [`PERFORM lib.refuse('PT400', ${literal(`"${name}" must be a string`)}, ${literal(name)}, 'type');`]);

/** An integer setting the gateway passes (lifetimes, limits: server/auth/settings.ts). */
const setting = (name: string) => `(args -> 'settings' ->> ${literal(name)})::integer`;

export function identityDdl(model: Model, tables: TableIR[], dbRoles: RoleNames): string {
  const identity = model.api.identity;
  const entities = tables.filter((t) => t.kind === 'entity');
  if (!identity) {
    return [`DROP FUNCTION IF EXISTS ${CLAIMS}(text);`,
      ...entities.map((t) => `DROP TRIGGER IF EXISTS identity_revoke ON ${qname('app', t.name)};`)].join('\n');
  }
  const users = entities.find((t) => t.entityName === identity.entity)!;
  const props = Object.entries(users.entity.properties);
  const [pk] = primaryKeyOf(users.entity);
  const email = emailProperties(users.entity)[0]!;
  const password = passwordProperties(users.entity)[0]!;
  const keyType = users.columns.find((c) => c.name === pk)!.sqlType;
  const table = qname('app', users.name);
  const live = users.entity.softDelete ? ' AND u.deleted_at IS NULL' : '';
  const col = (name: string) => `u.${ident(name)}`;

  const rolesJoin = identity.roles ? tables.find((t) => t.kind === 'join' && t.entityName === identity.entity && t.relation?.name === identity.roles) : undefined;
  const roles = rolesJoin
    ? `to_jsonb(ARRAY(SELECT j.${ident(rolesJoin.relation!.targetColumn!)}::text FROM ${qname('app', rolesJoin.name)} j WHERE j.${ident(rolesJoin.relation!.ownerColumn)} = u.${ident(pk)} ORDER BY 1))`
    : identity.roles ? `to_jsonb(coalesce(${col(identity.roles)}::text[], '{}'))` : `'[]'::jsonb`;
  const claims = [
    `'sub', ${col(pk)}::text`, `'email', ${col(email)}`, `'roles', ${roles}`,
    // Under the organization strategies the org claim is the organization the person's record belongs to: a
    // writable `org` property let one organization's administrator sign someone into another, with its roles.
    ...(model.api.strategy !== 'RBAC' ? ["'org', u.organization_id"] : identity.org ? [`'org', ${col(identity.org)}`] : []),
    ...(identity.orgRoles ? [`'org_roles', to_jsonb(coalesce(${col(identity.orgRoles)}::text[], '{}'))`] : []),
  ];
  const claimsFn = [
    `CREATE OR REPLACE FUNCTION ${CLAIMS}(_sub text) RETURNS jsonb LANGUAGE sql STABLE AS $fn$`,
    `  SELECT jsonb_strip_nulls(jsonb_build_object(${claims.join(', ')}))`,
    `  FROM ${table} u WHERE ${keyEquals(col(pk), keyType, '_sub')}${live}`,
    '$fn$;',
    `COMMENT ON FUNCTION ${CLAIMS}(text) IS ${literal(`The claims of a ${identity.entity}'s tokens: its key as sub, ${email} as email, roles${identity.org ? ', org' : ''}${identity.orgRoles ? ', org_roles' : ''}.`)};`,
    `REVOKE EXECUTE ON FUNCTION ${CLAIMS}(text) FROM PUBLIC;`,
  ].join('\n');

  const token = plpgsql(qname('api', AUTH_FUNCTIONS.token), [['args', 'jsonb']], 'jsonb',
    ['_login text;', '_email_key text;', '_ip_key text;', '_wait integer;', '_sub text;', '_hash text;'], [
      requireString('email', "args -> 'email'"),
      requireString('password', "args -> 'password'"),
      "_login := lower(args ->> 'email');",
      "_email_key := 'email:' || encode(extensions.digest(_login, 'sha256'), 'hex');",
      '-- An IPv6 client holds a whole /64: its addresses count as one.',
      "_ip_key := 'ip:' || coalesce(host(CASE WHEN family(auth.ip()) = 6 THEN network(set_masklen(auth.ip(), 64)) ELSE auth.ip() END), 'unknown');",
      '-- Every attempt counts first (one upsert per key), so parallel guesses are all counted: an email from one',
      '-- address (so one client guessing locks itself out, not the account\'s owner), the email from all addresses',
      '-- (a higher ceiling, against guesses spread over many), and the address over all emails.',
      `_wait := greatest(lib.sign_in_attempt(_email_key || ' ' || _ip_key, ${setting('attempts_per_email')}, ${setting('window_seconds')}),`,
      `  lib.sign_in_attempt(_email_key, ${setting('attempts_per_account')}, ${setting('window_seconds')}),`,
      `  lib.sign_in_attempt(_ip_key, ${setting('attempts_per_ip')}, ${setting('window_seconds')}));`,
      `IF _wait IS NOT NULL THEN RETURN jsonb_build_object('error', 'limited', 'retry_after', _wait); END IF;`,
      `SELECT ${col(pk)}::text, ${col(password)} INTO _sub, _hash FROM ${table} u WHERE ${col(email)} = _login${live};`,
      '-- One bcrypt hash of the same cost whether or not the user exists: an unknown email takes as long',
      '-- as a wrong password, and both get the same answer. It waits for a place among the hashes running.',
      'PERFORM lib.hash_slot();',
      `IF extensions.crypt(args ->> 'password', coalesce(_hash, extensions.gen_salt('bf', ${PASSWORD_COST}))) IS DISTINCT FROM _hash`,
      `  OR octet_length(args ->> 'password') > ${PASSWORD_MAX_BYTES} THEN  -- a hash stored before that limit matched on 72 bytes`,
      `  RETURN '{"error": "invalid"}';`,
      'END IF;',
      'PERFORM lib.sign_in_succeeded(_email_key, _ip_key);',
      `RETURN ${CLAIMS}(_sub) || jsonb_build_object('refresh_token', lib.issue_refresh_token(_sub, gen_random_uuid(), ${setting('refresh_seconds')}));`,
    ], `POST /auth/token: {email, password, settings} -> the claims of the ${identity.entity} and a refresh token, or {error: invalid | limited, retry_after}.`, ` ${DEFINER}`);

  const refresh = plpgsql(qname('api', AUTH_FUNCTIONS.refresh), [['args', 'jsonb']], 'jsonb', ['_r jsonb;', '_claims jsonb;'], [
    requireString('refresh_token', "args -> 'refresh_token'"),
    `_r := lib.rotate_refresh_token(args ->> 'refresh_token', ${setting('refresh_seconds')});`,
    "IF _r ? 'error' THEN RETURN _r; END IF;",
    `_claims := ${CLAIMS}(_r ->> 'sub');`,
    'IF _claims IS NULL THEN',
    "  PERFORM lib.revoke_refresh_family(_r ->> 'refresh_token');",
    `  RETURN '{"error": "invalid"}';`,
    'END IF;',
    "RETURN _claims || jsonb_build_object('refresh_token', _r ->> 'refresh_token');",
  ], 'POST /auth/refresh: {refresh_token, settings} -> fresh claims and the next refresh token of the family, or {error: invalid | reused}.', ` ${DEFINER}`);

  const logout = plpgsql(qname('api', AUTH_FUNCTIONS.logout), [['args', 'jsonb']], 'jsonb', [], [
    requireString('refresh_token', "args -> 'refresh_token'"),
    "PERFORM lib.revoke_refresh_family(args ->> 'refresh_token');",
    "RETURN '{}';",
  ], 'POST /auth/logout: {refresh_token} -> {}; the token\'s family is revoked.', ` ${DEFINER}`);

  const revoke = [
    ...entities.filter((t) => t !== users).map((t) => `DROP TRIGGER IF EXISTS identity_revoke ON ${qname('app', t.name)};`),
    `DROP TRIGGER IF EXISTS identity_revoke ON ${table};`,
    `CREATE TRIGGER identity_revoke AFTER UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION lib.identity_revoke(${literal(pk)}, ${literal(password)});`,
    `COMMENT ON TRIGGER identity_revoke ON ${table} IS 'api.identity: a password change or a deletion revokes the user''s refresh tokens.';`,
  ].join('\n');
  // Granted here, not only by the API part's GRANT ON ALL FUNCTIONS, which runs before these exist: a
  // migration that installs them afresh gives them the same privileges as a database the script built twice.
  const sig = (fn: string) => `${qname('api', fn)}(jsonb)`;
  // Definers: only the request roles run them (through api.dispatch), not PUBLIC, so not the gateway's login.
  const all = Object.values(AUTH_FUNCTIONS).map(sig).join(', ');
  const grant = `REVOKE EXECUTE ON FUNCTION ${all} FROM PUBLIC;\nGRANT EXECUTE ON FUNCTION ${all} TO ${requestRoles(dbRoles)};`;
  return [claimsFn, token, refresh, logout, revoke, grant].join('\n\n');
}
