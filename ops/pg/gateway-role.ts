// The gateway's own connection (design.md 3): npm start logs in as the authenticator role, which can do nothing by
// itself but switch into the request roles; with GATEWAY_DATABASE_URL, or the password kept under .data/.
import { join } from 'node:path';
import postgres from 'postgres';
import { roleNamesFromEnv } from '../../compiler/sql/roles.ts';
import { persistentSecret, storedSecret } from '../../server/pg/secret.ts';
import { projectRoot } from './resolve.ts';
import { quoteIdent } from './admin.ts';

/** The variable that lets npm start set the authenticator's password on a database it does not own. */
export const SET_PASSWORD_ENV = 'SET_AUTHENTICATOR_PASSWORD';
/** Where npm start keeps the authenticator's password, under the project root. */
export const PASSWORD_FILE = '.data/authenticator-password';

export interface GatewayLoginOptions {
  /** Where `.data/` lives; the project root by default. */
  root?: string;
  /** The database is the project's own embedded cluster (resolveDatabase): its roles' passwords are npm start's to set. */
  embedded?: boolean;
}

/**
 * The gateway's login URL: GATEWAY_DATABASE_URL when set, else the authenticator role (DB_ROLE_PREFIX, DB_AUTHENTICATOR_ROLE)
 * on `adminUrl`'s database with the password kept in PASSWORD_FILE. That password is set on the role only when the login
 * fails and the cluster is the embedded one or SET_AUTHENTICATOR_PASSWORD=true asks for it (so gateways sharing the folder
 * never lock each other out, and a hosted cluster's own authenticator is never reset); otherwise the failure is an
 * Error saying what to set.
 */
export async function gatewayUrl(adminUrl: string, env: NodeJS.ProcessEnv = process.env, opts: GatewayLoginOptions = {}): Promise<string> {
  if (env.GATEWAY_DATABASE_URL) return env.GATEWAY_DATABASE_URL;
  const role = roleNamesFromEnv(env).authenticator;
  const file = join(opts.root ?? projectRoot, PASSWORD_FILE);
  const url = new URL(adminUrl);
  url.username = role;
  const known = storedSecret(file);
  let refused = `there is no ${PASSWORD_FILE} yet`;
  if (known !== undefined) {
    url.password = known;
    const why = await loginRefusal(url.toString());
    if (!why) return url.toString();
    refused = why;
  }
  if (!opts.embedded && !/^(true|1|yes)$/i.test(env[SET_PASSWORD_ENV] ?? '')) {
    throw new Error(`Cannot log in as the gateway's role ${role} with the password kept in ${PASSWORD_FILE} (${refused}), and npm start `
      + `changes a role's password only when asked. Set GATEWAY_DATABASE_URL to ${role}'s own login URL, or set ${SET_PASSWORD_ENV}=true `
      + `to let npm start set ${role}'s password to the one kept in ${PASSWORD_FILE}.`);
  }
  const password = persistentSecret(file);
  await setRolePassword(adminUrl, role, password);
  url.password = password;
  return url.toString();
}

/** The variable with which `migrate` sets the authenticator's password after migrating (asked for, so allowed). */
export const AUTHENTICATOR_PASSWORD_ENV = 'AUTHENTICATOR_PASSWORD';

/** Gives `role` LOGIN and `password`, as the admin behind `adminUrl`. */
export async function setRolePassword(adminUrl: string, role: string, password: string): Promise<void> {
  const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 });
  try {
    await admin.unsafe(`alter role ${quoteIdent(role)} with login password '${password.replace(/'/g, "''")}'`);
  } finally {
    await admin.end({ timeout: 2 });
  }
}

/** Why PostgreSQL refuses a login at `url`, or undefined when it accepts it. */
async function loginRefusal(url: string): Promise<string | undefined> {
  const probe = postgres(url, { onnotice: () => {}, max: 1, connect_timeout: 5 });
  try {
    await probe`select 1`;
    return undefined;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
}
