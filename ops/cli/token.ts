// `npm run token -- --sub u1 --roles editor,author [--email a@example.com] [--org o1 --org-roles owner]`:
// prints an HS256 JWT for local use, signed with JWT_SECRET or the secret `npm start` keeps in .data/.
import { commandLine } from '../../compiler/command-line.ts';
import { SignJWT } from 'jose';
import { jwtSecret } from './jwt-secret.ts';

const USAGE = `Usage: npm run token -- --sub <user id> [--roles r1,r2] [--email a@example.com]
       [--org <org id> --org-roles r1,r2] [--enterprise <id> --enterprise-roles r1,r2] [--expires 24h]`;

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean));

async function main(): Promise<void> {
  const values = commandLine(USAGE, {
    sub: { type: 'string' }, roles: { type: 'string' }, email: { type: 'string' },
    org: { type: 'string' }, 'org-roles': { type: 'string' },
    enterprise: { type: 'string' }, 'enterprise-roles': { type: 'string' },
    expires: { type: 'string', default: '24h' },
  });
  if (!values.sub) {
    console.error(`--sub is required.\n\n${USAGE}`);
    process.exit(1);
  }
  const claims: Record<string, unknown> = { roles: list(values.roles) ?? [] };
  if (values.email) claims.email = values.email;
  if (values.org) claims.org = values.org;
  if (values['org-roles'] !== undefined) claims.org_roles = list(values['org-roles']);
  if (values.enterprise) claims.enterprise = values.enterprise;
  if (values['enterprise-roles'] !== undefined) claims.enterprise_roles = list(values['enterprise-roles']);
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(values.sub)
    .setIssuedAt()
    .setExpirationTime(values.expires!)
    .sign(new TextEncoder().encode(jwtSecret()));
  console.log(token);
}

main().catch((err: unknown) => {
  console.error(`token: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
});
