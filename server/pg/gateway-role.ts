// The gateway's own connection (design.md 3): it logs in as `authenticator`, which can do nothing by
// itself but switch into the request roles. GATEWAY_DATABASE_URL names it; otherwise npm start sets a
// fresh password on the role through the admin connection and builds the URL from DATABASE_URL's host.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export async function gatewayUrl(adminUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.GATEWAY_DATABASE_URL) return env.GATEWAY_DATABASE_URL;
  const password = randomBytes(24).toString('base64url');
  const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 });
  try {
    await admin.unsafe(`alter role authenticator with login password '${password}'`);
  } finally {
    await admin.end({ timeout: 2 });
  }
  const url = new URL(adminUrl);
  url.username = 'authenticator';
  url.password = password;
  return url.toString();
}
