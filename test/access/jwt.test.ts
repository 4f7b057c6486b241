// JWT attacks on the gateway (design.md 3): unsigned, wrong key or algorithm, expired, not yet valid,
// wrong or missing audience (JWT_AUDIENCE), tampered, no subject: each 401 Bearer error="invalid_token".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT } from 'jose';
import type { Hono } from 'hono';
import { createApp } from '../../server/app.ts';
import { SECRET, call, startApi, type Api } from '../server/setup.ts';

const AUDIENCE = 'https://publishing.example.com';
const OTHER_SECRET = 'not-the-api-secret-not-the-api-secret-0123456789';
const now = () => Math.floor(Date.now() / 1000);

let api: Api;
/** The same database and manifest behind a gateway that requires `aud` = AUDIENCE. */
let strict: Hono;

test.before(async () => {
  api = await startApi();
  strict = createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, jwtAudience: AUDIENCE });
});
test.after(async () => api?.close());

interface Mint {
  claims?: Record<string, unknown>;
  secret?: string;
  alg?: 'HS256' | 'HS384' | 'HS512';
  exp?: number;
  nbf?: number;
  aud?: string;
}

function mint({ claims = { sub: 'u1', roles: ['editor'] }, secret = SECRET, alg = 'HS256', exp = now() + 3600, nbf, aud }: Mint = {}) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).setIssuedAt().setExpirationTime(exp);
  if (nbf !== undefined) jwt.setNotBefore(nbf);
  if (aud !== undefined) jwt.setAudience(aud);
  return jwt.sign(new TextEncoder().encode(secret));
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** GET /projects (signed-in callers only) with the token; the reply as status, challenge and detail. */
async function attempt(app: Hono, token: string) {
  const r = await call(app, 'GET', '/projects', { headers: { Authorization: `Bearer ${token}` } });
  return { status: r.status, challenge: r.headers.get('www-authenticate'), detail: String(r.json?.detail ?? ''), code: r.json?.code };
}

async function refused(app: Hono, token: string, mentions?: RegExp) {
  const r = await attempt(app, token);
  assert.equal([r.status, r.code, r.challenge], [401, 'E_UNAUTHENTICATED', 'Bearer error="invalid_token"'], r.detail);
  if (mentions) assert.match(r.detail, mentions);
}

test('a token without exp is 401: it would never expire', async () => {
  const forever = await new SignJWT({ sub: 'u1', roles: ['editor'] }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt()
    .sign(new TextEncoder().encode(SECRET));
  await refused(api.app, forever, /"exp" claim/);
});

test('controls: a good token is 200 on both gateways (with the audience where one is required)', async () => {
  assert.is((await attempt(api.app, await mint())).status, 200);
  assert.is((await attempt(strict, await mint({ aud: AUDIENCE }))).status, 200);
  const anon = await call(api.app, 'GET', '/projects');
  assert.equal([anon.status, anon.headers.get('www-authenticate')], [401, 'Bearer'], 'no token: anonymous, refused by the scenarios');
});

test('alg "none": unsigned tokens are refused, with or without a signature part', async () => {
  const payload = b64({ sub: 'u1', roles: ['admin'], exp: now() + 3600 });
  for (const header of [{ alg: 'none', typ: 'JWT' }, { alg: 'None' }, { alg: 'NONE' }]) {
    await refused(api.app, `${b64(header)}.${payload}.`);
    await refused(strict, `${b64(header)}.${payload}.`);
  }
  const good = (await mint()).split('.');
  await refused(api.app, `${b64({ alg: 'none' })}.${good[1]}.${good[2]}`);
});

test('wrong key, and the right key under another HMAC algorithm', async () => {
  await refused(api.app, await mint({ secret: OTHER_SECRET }), /signature/);
  await refused(strict, await mint({ secret: OTHER_SECRET, aud: AUDIENCE }), /signature/);
  await refused(api.app, await mint({ alg: 'HS384' }), /algorithm/);
  await refused(api.app, await mint({ alg: 'HS512' }), /algorithm/);
});

test('expired and not-yet-valid tokens', async () => {
  await refused(api.app, await mint({ exp: now() - 60 }), /expired/);
  await refused(strict, await mint({ exp: now() - 60, aud: AUDIENCE }), /expired/);
  await refused(api.app, await mint({ nbf: now() + 3600 }), /nbf/);
  await refused(strict, await mint({ nbf: now() + 3600, aud: AUDIENCE }), /nbf/);
});

test('audience, when JWT_AUDIENCE is configured: wrong or missing is refused', async () => {
  await refused(strict, await mint({ aud: 'https://elsewhere.example.com' }), /aud/);
  await refused(strict, await mint(), /aud/);
  assert.is((await attempt(api.app, await mint({ aud: 'https://elsewhere.example.com' }))).status, 200, 'no audience configured: aud is not checked');
});

test('tampered payload or header with the original signature', async () => {
  const [header, payload, signature] = (await mint({ aud: AUDIENCE })).split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  await refused(strict, `${header}.${b64({ ...claims, roles: ['admin'] })}.${signature}`, /signature/);
  await refused(strict, `${header}.${b64({ ...claims, sub: 'someone-else' })}.${signature}`, /signature/);
  await refused(strict, `${header}.${b64({ ...claims, exp: claims.exp + 86400 })}.${signature}`, /signature/);
  await refused(strict, `${b64({ alg: 'HS256', typ: 'JWT', kid: 'x' })}.${payload}.${signature}`, /signature/);
  await refused(strict, `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`);
  await refused(strict, `${header}.${payload}`);
});

test('no subject: a token must name the caller', async () => {
  await refused(api.app, await mint({ claims: { roles: ['admin'] } }), /sub/);
  await refused(api.app, await mint({ claims: { sub: '', roles: ['admin'] } }), /sub/);
  await refused(api.app, await mint({ claims: { sub: 42, roles: ['admin'] } }), /sub/);
  await refused(strict, await mint({ claims: { roles: ['admin'] }, aud: AUDIENCE }), /sub/);
});

test('no refused token reached the database or left a 5xx', () => {
  assert.equal(api.logged, []);
});

test.run();
