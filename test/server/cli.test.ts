// The commands around the gateway: `npm run token` mints a verifiable HS256 JWT with the given claims,
// and `npm start` serves the API described by the compiled database, accepting those tokens.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { npmRun, startTs } from '../harness/child.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';

const JWT_SECRET = 'cli-test-secret-cli-test-secret-cli-test-secret';
let db: TestDatabase;
let dir: string;

test.before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tinyModel));
});
test.after(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const mint = (args: string[], secret = JWT_SECRET) => npmRun('token', args, { JWT_SECRET: secret });

test('npm run token prints an HS256 JWT carrying the claims', async () => {
  const run = await mint(['--sub', 'u1', '--roles', 'editor,author', '--email', 'a@example.com', '--org', 'o1', '--org-roles', 'owner']);
  assert.is(run.code, 0, run.stderr);
  const { payload, protectedHeader } = await jwtVerify(run.stdout.trim(), new TextEncoder().encode(JWT_SECRET), { algorithms: ['HS256'] });
  assert.is(protectedHeader.alg, 'HS256');
  assert.equal([payload.sub, payload.roles, payload.email, payload.org, payload.org_roles], ['u1', ['editor', 'author'], 'a@example.com', 'o1', ['owner']]);
  assert.ok(typeof payload.exp === 'number' && payload.exp > Date.now() / 1000, 'it expires, in the future');
  const missing = await mint(['--roles', 'editor']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, '--sub is required');
  const weak = await mint(['--sub', 'u1'], 'short');
  assert.is(weak.code, 1);
  assert.match(weak.stderr, 'at least 32 bytes');
});

test('npm start serves the API from the manifest and accepts minted tokens', async () => {
  const port = await freePort();
  const env = { DATABASE_URL: db.url, PORT: String(port), MODEL: join(dir, 'tiny.model.json'), JWT_SECRET, SET_AUTHENTICATOR_PASSWORD: 'true' };
  const server = await startTs('ops/cli/start.ts', ['--migrations', join(dir, 'migrations')], env, /Health: /);
  try {
    assert.match(server.output(), `API: http://localhost:${port}/api/tiny/v1`);
    assert.match(server.output(), 'npm run -s token');
    assert.match(server.output(), `Docs: http://localhost:${port}/api/tiny/v1/docs`);
    const base = `http://127.0.0.1:${port}/api/tiny/v1`;
    const docsPage = await fetch(`${base}/docs`);
    assert.is(docsPage.status, 200, 'the banner\'s docs address answers');
    await docsPage.body?.cancel();
    const minted = (await mint(['--sub', 'u1'])).stdout.trim();
    const created = await fetch(`${base}/notes`, {
      method: 'POST', body: JSON.stringify({ title: 'First' }),
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${minted}` },
    });
    assert.is(created.status, 201, await created.clone().text());
    assert.match(created.headers.get('location') ?? '', /^\/api\/tiny\/v1\/notes\/.+/);
    const listed = await fetch(`${base}/notes`);
    assert.equal((await listed.json()).meta.total, 1);
    const forged = await fetch(`${base}/notes`, { headers: { Authorization: `Bearer ${(await mint(['--sub', 'u1'], 'x'.repeat(40))).stdout.trim()}` } });
    assert.is(forged.status, 401);
    assert.is((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
    assert.is((await fetch(`http://127.0.0.1:${port}/elsewhere`)).headers.get('content-type'), 'application/problem+json');
  } finally {
    assert.is(await server.stop(), 0, server.output());
  }
});

test.run();
