// Identity settings as `npm start` reads them from the environment (issue 13): JWT_PRIVATE_KEY (RS256 PEM with
// \n escapes) signs /auth/token and is served at /.well-known/jwks.json; lifetimes, sign-in limits and claim paths apply.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { npmRun, startTs, type Running } from '../harness/child.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';

const JWT_SECRET = 'identity-start-secret-identity-start-secret-0123';
/** As an environment file holds it: one line, newlines written as \n. */
const rsaPem = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits }).privateKey
  .export({ type: 'pkcs8', format: 'pem' }).toString().trim().replace(/\n/g, '\\n');

let db: TestDatabase;
let dir: string;
let server: Running;
let origin = '';
const base = () => `${origin}/api/publishing/v1`;

test.before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'identity-start-'));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = await startTs('ops/cli/start.ts', ['--migrations', join(dir, 'migrations')], {
    DATABASE_URL: db.url, PORT: String(port), MODEL: 'examples/publishing.model.json', LOG_LEVEL: 'silent',
    JWT_SECRET, JWT_PRIVATE_KEY: rsaPem(2048), ACCESS_TOKEN_SECONDS: '120', SIGN_IN_ATTEMPTS_PER_EMAIL: '2',
    JWT_CLAIM_ROLES: 'realm_access.roles', SET_AUTHENTICATOR_PASSWORD: 'true',
  }, /Health: /, 120_000);
});
test.after(async () => {
  if (server) assert.is(await server.stop(), 0, server.output());
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown, token?: string) => fetch(`${base()}${path}`, {
  method: 'POST', body: JSON.stringify(body),
  headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
});

test('JWT_PRIVATE_KEY: RS256 tokens whose kid the JWKS serves; ACCESS_TOKEN_SECONDS sets their lifetime', async () => {
  const jwks = await (await fetch(`${origin}/.well-known/jwks.json`)).json();
  assert.is(jwks.keys.length, 1);
  assert.equal([jwks.keys[0].kty, jwks.keys[0].alg, jwks.keys[0].use], ['RSA', 'RS256', 'sig']);
  assert.not.ok('d' in jwks.keys[0], 'no private part is published');

  const signedUp = await post('/users', { email: 'rosalind@example.com', password: 'photo-51-helix' });
  assert.is(signedUp.status, 201, await signedUp.clone().text());
  const id = (await signedUp.json()).data.id;
  const reply = await post('/auth/token', { email: 'rosalind@example.com', password: 'photo-51-helix' });
  assert.is(reply.status, 200, await reply.clone().text());
  const issued = await reply.json();
  assert.is(issued.expires_in, 120);
  const header = decodeProtectedHeader(issued.access_token);
  assert.equal([header.alg, header.kid], ['RS256', jwks.keys[0].kid]);
  const { payload } = await jwtVerify(issued.access_token, createRemoteJWKSet(new URL(`${origin}/.well-known/jwks.json`)), { algorithms: ['RS256'] });
  assert.is(payload.sub, id);
  assert.is(payload.exp! - payload.iat!, 120);

  const project = await post('/projects', { name: 'Double helix' }, issued.access_token);
  assert.is(project.status, 201, await project.clone().text());
  assert.is((await project.json()).data.owner_id, id, 'the Owner module took the RS256 token\'s sub');
});

test('npm run token keeps working beside the private key (HS256 with JWT_SECRET)', async () => {
  const minted = await npmRun('token', ['--sub', 'u1', '--roles', 'editor'], { JWT_SECRET });
  assert.is(minted.code, 0, minted.stderr);
  const token = minted.stdout.trim();
  assert.is(decodeProtectedHeader(token).alg, 'HS256');
  const tag = await post('/tags', { slug: 'cli', label: 'CLI' }, token);
  assert.is(tag.status, 201, await tag.clone().text());
});

test('JWT_CLAIM_ROLES from the environment: a Keycloak-shaped token is an editor', async () => {
  const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('kc-1')
    .setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode(JWT_SECRET));
  const editor = await post('/tags', { slug: 'kc', label: 'Keycloak' }, await sign({ realm_access: { roles: ['editor'] } }));
  assert.is(editor.status, 201, await editor.clone().text());
  const viewer = await post('/tags', { slug: 'kc-no', label: 'No' }, await sign({ realm_access: { roles: ['viewer'] } }));
  assert.is(viewer.status, 403, await viewer.clone().text());
});

test('SIGN_IN_ATTEMPTS_PER_EMAIL from the environment: the third attempt is 429 with Retry-After, even with the right password', async () => {
  assert.is((await post('/users', { email: 'guess@example.com', password: 'the-right-one' })).status, 201);
  for (let i = 0; i < 2; i++) assert.is((await post('/auth/token', { email: 'guess@example.com', password: `wrong ${i}` })).status, 401);
  const limited = await post('/auth/token', { email: 'guess@example.com', password: 'the-right-one' });
  assert.is(limited.status, 429, await limited.clone().text());
  assert.is((await limited.json()).code, 'E_TOO_MANY_REQUESTS');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
});

test('a JWT_PRIVATE_KEY that is neither P-256 nor RSA of 2048 bits or more stops the start', async () => {
  const run = await npmRun('start', ['--migrations', join(dir, 'migrations')], {
    DATABASE_URL: db.url, PORT: String(await freePort()), MODEL: 'examples/publishing.model.json', JWT_SECRET, JWT_PRIVATE_KEY: rsaPem(1024), SET_AUTHENTICATOR_PASSWORD: 'true',
  }, 120_000);
  assert.is(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stderr, 'JWT_PRIVATE_KEY must be an EC P-256 key (ES256) or an RSA key of at least 2048 bits (RS256).');
});

test.run();
