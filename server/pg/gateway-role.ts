// The gateway's own connection (design.md 3): it logs in as `authenticator`, which can do nothing by
// itself but switch into the request roles. GATEWAY_DATABASE_URL names it; otherwise npm start uses a
// password kept in .data/authenticator-password, set on the role only when it does not work yet, so
// gateways sharing that folder never lock each other out by rotating it.
import { join } from 'node:path';
import postgres from 'postgres';
import { persistentSecret } from './secret.ts';
import { projectRoot } from './resolve.ts';

export async function gatewayUrl(adminUrl: string, env: NodeJS.ProcessEnv = process.env, root = projectRoot): Promise<string> {
  if (env.GATEWAY_DATABASE_URL) return env.GATEWAY_DATABASE_URL;
  const password = persistentSecret(join(root, '.data', 'authenticator-password')); // hex: safe in the statement below
  const url = new URL(adminUrl);
  url.username = 'authenticator';
  url.password = password;
  if (await canLogIn(url.toString())) return url.toString();
  const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 });
  try {
    await admin.unsafe(`alter role authenticator with login password '${password}'`);
  } finally {
    await admin.end({ timeout: 2 });
  }
  return url.toString();
}

async function canLogIn(url: string): Promise<boolean> {
  const probe = postgres(url, { onnotice: () => {}, max: 1, connect_timeout: 5 });
  try {
    await probe`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
}
