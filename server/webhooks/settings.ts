// Each webhook's address and signing secret from the gateway's environment, checked at start: `${VARIABLE}` parts of
// its url, and WEBHOOK_<NAME>_SECRET in the Standard Webhooks form (whsec_<base64>); every missing one named at once.
import { Webhook } from 'standardwebhooks';

export interface WebhookTarget {
  name: string;
  /** The address, its variables resolved. */
  url: string;
  /** whsec_<base64 of 24 to 64 bytes>. */
  secret: string;
}

/** The variable holding a webhook's secret: WEBHOOK_<NAME>_SECRET (the name upper-cased). */
export const secretVariable = (name: string) => `WEBHOOK_${name.toUpperCase()}_SECRET`;

/** The webhooks lib.webhook_list() names, resolved; an Error listing every reason otherwise. */
export function webhookTargets(rows: ReadonlyArray<{ name: string; url: string }>, env: NodeJS.ProcessEnv): WebhookTarget[] {
  const problems: string[] = [];
  const targets = rows.map(({ name, url: template }) => {
    const url = template.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, variable: string) => {
      const value = env[variable];
      if (!value) problems.push(`${variable}: the address of the webhook "${name}" (its url is "${template}").`);
      return value ?? '';
    });
    if (!problems.length && !isHttpUrl(url)) problems.push(`the webhook "${name}" needs an http or https address, got "${url}".`);
    const variable = secretVariable(name);
    const secret = env[variable] ?? '';
    if (!secret) problems.push(`${variable}: the signing secret of the webhook "${name}", whsec_ and 24 to 64 random bytes in base64.`);
    else if (!validSecret(secret)) problems.push(`${variable} must be whsec_ followed by 24 to 64 bytes in base64 (Standard Webhooks).`);
    return { name, url, secret };
  });
  if (problems.length === 1) throw new Error(`Webhooks need ${problems[0]}`);
  if (problems.length) throw new Error(`Webhooks need:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return targets;
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

function validSecret(secret: string): boolean {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!m) return false;
  const bytes = Buffer.from(m[1]!, 'base64').length;
  if (bytes < 24 || bytes > 64) return false;
  try {
    new Webhook(secret);
    return true;
  } catch {
    return false;
  }
}
