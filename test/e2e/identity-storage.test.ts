// What identity keeps in PostgreSQL (issue 13): refresh tokens and emails only as SHA-256, sign-in counts a second
// gateway sees, logout revoking a sign-in's whole family, a soft-deleted user's tokens revoked and not revived.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { createApp } from '../../server/app.ts';
import { testApi } from '../harness/fixtures.ts';
import { call, startApi as startInProcess, type Api } from '../server/setup.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { JWT_SECRET, startApi, type RunningApi } from './support/server.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

let api: RunningApi;
let soft: Api;
const SOFT_BASE = '/api/softusers/v1';
const softModel = {
  api: { ...testApi('softusers'), identity: { entity: 'Member' } },
  entities: {
    Member: {
      collection: 'members',
      softDelete: true,
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        email: { type: 'String', required: true, unique: true, modules: { Email: {} } },
        password: { type: 'String', required: true, modules: { Password: {} } },
      },
    },
  },
};

test.before(async () => {
  api = await startApi('examples/publishing.model.json', { identity: { auth: { attemptsPerEmail: 2, attemptsPerIp: 100, windowSeconds: 600 } } });
  soft = await startInProcess(softModel);
});
test.after(async () => {
  await api?.close();
  await soft?.close();
});

test('refresh tokens and emails are kept only as SHA-256', async () => {
  dataOf(await api.post('/users', { email: 'Kept@Example.com', password: 'hash-me-please' }, { token: null }), 201);
  const issued = (await api.post('/auth/token', { email: 'kept@example.com', password: 'hash-me-please' }, { token: null })).body;
  assert.type(issued.refresh_token, 'string');
  const rows = await api.db.sql`select hash, to_jsonb(t)::text as whole from lib.refresh_tokens t`;
  assert.is(rows.length, 1);
  assert.equal(Buffer.from(rows[0]!.hash), sha256(issued.refresh_token), 'the row is keyed by the token\'s SHA-256');
  assert.not.match(rows[0]!.whole, issued.refresh_token, 'the token itself is nowhere in the row');
  // A failed attempt leaves a count keyed by the email's hash, never the address.
  expectStatus(await api.post('/auth/token', { email: 'kept@example.com', password: 'wrong' }, { token: null }), 401);
  const keys = (await api.db.sql`select key from lib.sign_in_attempts`).map((r) => r.key as string);
  assert.ok(keys.includes(`email:${sha256('kept@example.com').toString('hex')}`), keys.join(', '));
  assert.not.ok(keys.some((k) => k.includes('kept@')), 'no address in the counts');
});

test('the counts are shared: failures at one gateway make another answer 429', async () => {
  dataOf(await api.post('/users', { email: 'shared@example.com', password: 'the-right-one' }, { token: null }), 201);
  // Two more gateways on the same database, the same caller (in-process requests carry no address): the email's
  // count from that caller is one count.
  const gateway = () => createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: JWT_SECRET, auth: { attemptsPerEmail: 2, attemptsPerIp: 100, windowSeconds: 600 } });
  const [one, other] = [gateway(), gateway()];
  for (let i = 0; i < 2; i++) assert.is((await call(one, 'POST', '/auth/token', { body: { email: 'shared@example.com', password: `no ${i}` } })).status, 401);
  const reply = await call(other, 'POST', '/auth/token', { body: { email: 'shared@example.com', password: 'the-right-one' } });
  assert.is(reply.status, 429, reply.text);
  assert.ok(Number(reply.headers.get('retry-after')) >= 1);
  assert.equal(api.serverErrors, []);
});

test('logout with an older token of a sign-in revokes the newest one rotated from it', async () => {
  dataOf(await api.post('/users', { email: 'family@example.com', password: 'one-family-only' }, { token: null }), 201);
  const signIn = async () => (await api.post('/auth/token', { email: 'family@example.com', password: 'one-family-only' }, { token: null })).body;
  const first = await signIn();
  const other = await signIn(); // another sign-in (another device): its own family
  const rotated = await api.post('/auth/refresh', { refresh_token: first.refresh_token }, { token: null });
  expectStatus(rotated, 200);
  expectStatus(await api.post('/auth/logout', { refresh_token: first.refresh_token }, { token: null }), 204);
  expectStatus(await api.post('/auth/refresh', { refresh_token: rotated.body.refresh_token }, { token: null }), 401);
  expectStatus(await api.post('/auth/refresh', { refresh_token: other.refresh_token }, { token: null }), 200);
});

test('a soft delete revokes the user\'s refresh tokens and ends sign-in; a restore revives neither old token', async () => {
  const signIn = () => call(soft.app, 'POST', `${SOFT_BASE}/auth/token`, { body: { email: 'soft@example.com', password: 'soft-delete-me' } });
  const refresh = (refresh_token: string) => call(soft.app, 'POST', `${SOFT_BASE}/auth/refresh`, { body: { refresh_token } });
  const created = await call(soft.app, 'POST', `${SOFT_BASE}/members`, { body: { email: 'soft@example.com', password: 'soft-delete-me' } });
  assert.is(created.status, 201, created.text);
  const id = created.json.data.id;
  const first = await signIn();
  assert.is(first.status, 200, first.text);
  assert.is((await call(soft.app, 'DELETE', `${SOFT_BASE}/members/${id}`, { bearer: first.json.access_token })).status, 204);
  const [row] = await soft.db.sql`select deleted_at is not null as gone from app.members where id = ${id}`;
  assert.ok(row!.gone, 'soft-deleted, still in the table');
  const [live] = await soft.db.sql`select count(*)::int as n from lib.refresh_tokens where sub = ${id} and revoked_at is null`;
  assert.is(live!.n, 0, 'the soft delete itself revoked them');
  assert.is((await signIn()).status, 401, 'a soft-deleted user cannot sign in');
  // Restored before the old token is ever presented again: it must stay dead.
  assert.is((await call(soft.app, 'POST', `${SOFT_BASE}/members/${id}/restore`)).status, 200);
  assert.is((await refresh(first.json.refresh_token)).status, 401, 'a restore does not revive it');
  assert.is((await signIn()).status, 200, 'restored: signs in again');
  assert.equal(soft.logged, []);
});

test.run();
