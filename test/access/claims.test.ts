// Tokens of other providers through claim paths (JWT_CLAIM_<NAME>, issue 13 item 5): Keycloak
// (realm_access.roles), Auth0 (a namespaced claim URL) and Supabase (app_metadata) shaped tokens match
// the publishing example's role rules once their paths are configured, and not without them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createApp } from '../../server/app.ts';
import { claimPathsFromEnv, mapClaims, parseClaimPath } from '../../server/request/claims.ts';
import { SECRET, call, startApi, token, type Api } from '../server/setup.ts';

const AUTH0_NS = 'https://publishing.example.com';

/** Provider, its environment, and a token payload as that provider shapes it, granting `role`. */
const PROVIDERS = {
  keycloak: {
    env: { JWT_CLAIM_ROLES: 'realm_access.roles' },
    payload: (role: string) => ({
      sub: 'f:kc:7', email: 'kc@example.com', preferred_username: 'kc', azp: 'publishing',
      realm_access: { roles: [role, 'offline_access'] }, resource_access: { account: { roles: ['manage-account'] } },
    }),
  },
  auth0: {
    env: { JWT_CLAIM_ROLES: `"${AUTH0_NS}/roles"`, JWT_CLAIM_EMAIL: `"${AUTH0_NS}/email"` },
    payload: (role: string) => ({ sub: 'auth0|65f0', [`${AUTH0_NS}/roles`]: [role], [`${AUTH0_NS}/email`]: 'a0@example.com', scope: 'openid' }),
  },
  supabase: {
    env: { JWT_CLAIM_ROLES: 'app_metadata.roles' },
    payload: (role: string) => ({
      sub: '3f1e8c9a-0000-4000-8000-000000000001', email: 'sb@example.com', role: 'authenticated', aud: 'authenticated',
      app_metadata: { provider: 'email', roles: [role] }, user_metadata: {},
    }),
  },
} as const;

let api: Api;
const apps = new Map<string, Hono>();

test.before(async () => {
  api = await startApi();
  for (const [name, p] of Object.entries(PROVIDERS)) {
    apps.set(name, createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, claimPaths: claimPathsFromEnv(p.env), explainAccess: true }));
  }
});
test.after(async () => api?.close());

/** POST /tags: "Only editors create tags" (matchUserRole editor, overriding every other scenario). */
const createTag = (app: Hono, bearer: string, slug: string) => call(app, 'POST', '/tags', { bearer, body: { slug, label: slug } });

for (const [name, p] of Object.entries(PROVIDERS)) {
  test(`${name}: its role claim matches "Only editors create tags" through the configured path`, async () => {
    const app = apps.get(name)!;
    assert.is((await createTag(app, await token(p.payload('editor')), `${name}-tag`)).status, 201);
    assert.is((await createTag(app, await token(p.payload('viewer')), `${name}-no`)).status, 403, 'another role: refused');
    assert.is((await createTag(api.app, await token(p.payload('editor')), `${name}-unmapped`)).status, 403, 'without the path the role is not seen');
    // Our own and `npm run token` tokens (top-level claims) keep working beside the provider's.
    assert.is((await createTag(app, await token({ sub: 'u1', roles: ['editor'] }), `${name}-own`)).status, 201);
  });
}

test('auth0: the mapped email claim reaches matchEmailDomain (the scenario that lets a comment in)', async () => {
  const editor = await token({ sub: 'u-ed', roles: ['editor'] });
  const project = (await call(api.app, 'POST', '/projects', { bearer: editor, body: { name: 'P' } })).json.data.id;
  const postId = (await call(api.app, 'POST', `/projects/${project}/posts`, { bearer: editor, body: { title: 'T' } })).json.data.id;
  // Published, so that every commenter may read it: a comment goes only under a post its author may read.
  assert.is((await call(api.app, 'PATCH', `/posts/${postId}`, { bearer: editor, body: { status: 'published' } })).status, 200);
  const comment = async (payload: Record<string, unknown>) => {
    const r = await call(apps.get('auth0')!, 'POST', '/comments', { bearer: await token(payload), body: { post_id: postId, body: 'hi' } });
    assert.is(r.status, 201, r.text);
    return r.headers.get('access-scenario');
  };
  assert.is(await comment(PROVIDERS.auth0.payload('viewer')), 'Signed-in users from trusted domains comment');
  assert.is(await comment({ sub: 'auth0|x', [`${AUTH0_NS}/email`]: 'x@elsewhere.net' }), 'Authors manage their comments');
  // The domain is what follows the last @: an address at elsewhere.net that names example.com before it is not example.com's.
  for (const spoof of ['x@example.com@elsewhere.net', '"x@example.com"@elsewhere.net']) {
    assert.is(await comment({ sub: 'auth0|y', [`${AUTH0_NS}/email`]: spoof }), 'Authors manage their comments', spoof);
  }
});

test('claim paths: syntax, lists of one, refusal of malformed paths', () => {
  assert.equal(parseClaimPath('realm_access.roles'), ['realm_access', 'roles']);
  assert.equal(parseClaimPath('.realm_access.roles'), ['realm_access', 'roles'], 'PostgREST style leading dot');
  assert.equal(parseClaimPath('"https://x.example/roles"'), ['https://x.example/roles']);
  assert.equal(parseClaimPath('app_metadata."a.b".0'), ['app_metadata', 'a.b', '0']);
  for (const bad of ['', 'a..b', '"a"b', 'a.', '"unterminated']) assert.throws(() => parseClaimPath(bad), /claim path/, bad);
  assert.throws(() => claimPathsFromEnv({ JWT_CLAIM_ORG_ROLES: 'a..b' }), /JWT_CLAIM_ORG_ROLES/);
  const mapped = mapClaims({ sub: 's', roles: ['top'], app: { role: 'one', orgs: [{ id: 'o1' }] } },
    { roles: ['app', 'role'], org: ['app', 'orgs', '0', 'id'], email: ['missing'] });
  assert.equal(mapped, { sub: 's', roles: ['one'], org: 'o1', app: { role: 'one', orgs: [{ id: 'o1' }] } });
});

test('no mapped token reached a 5xx', () => {
  assert.equal(api.logged, []);
});

test('a provider\'s token (JWKS_URL) without the configured path gets no top-level claim in its place', async () => {
  // A provider of our own: a key pair and its JWKS on a local port.
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'provider-1', alg: 'ES256', use: 'sig' };
  const server = createServer((_req, res) => { res.setHeader('Content-Type', 'application/json'); res.end(JSON.stringify({ keys: [jwk] })); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    const app = createApp({ sql: api.db.sql, manifest: api.manifest, jwksUrl, claimPaths: claimPathsFromEnv(PROVIDERS.keycloak.env) });
    const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'provider-1' })
      .setIssuedAt().setExpirationTime('5m').sign(privateKey);
    assert.is((await createTag(app, await sign(PROVIDERS.keycloak.payload('editor')), 'jwks-mapped')).status, 201, 'the path is read');
    // A top-level roles claim (a user attribute some providers let users set) is not the configured roles.
    assert.is((await createTag(app, await sign({ sub: 'f:kc:8', roles: ['editor'] }), 'jwks-top-level')).status, 403);
  } finally {
    server.close();
  }
});

test.run();
