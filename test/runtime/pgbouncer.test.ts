// The gateway behind PgBouncer in transaction mode (two server connections for many callers): one
// statement per request with transaction-local role, claims and lock timeout, so concurrent callers never
// see each other's identity, and the merge-patch transaction works too. Skipped when pgbouncer is missing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { pgbouncerPath, startPgbouncer, type Pooler } from '../harness/pgbouncer.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';

const bin = pgbouncerPath();
if (!bin) console.log('pgbouncer.test.ts: SKIPPED, pgbouncer is not on the PATH (Debian: apt-get install pgbouncer)');
const run = bin ? test : test.skip;

let db: TestDatabase | undefined;
let pooler: Pooler | undefined;
let gw: ServedGateway | undefined;

test.before(async () => {
  if (!bin) return;
  db = await freshDatabase();
  await installModel(db, 'examples/publishing.model.json');
  pooler = await startPgbouncer(bin, await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' }), 2);
  gw = await startServe({ GATEWAY_DATABASE_URL: pooler.url, DATABASE_PREPARED_STATEMENTS: 'false', POOL_MAX: '8' });
});

test.after(async () => {
  await gw?.stop();
  await pooler?.stop();
  await db?.close();
});

run('concurrent callers through a transaction-mode pooler keep their own identity; lists and merge patches work', async () => {
  const api = gw!.client('/api/publishing/v1');
  const callers = Array.from({ length: 6 }, (_, i) => ({ sub: `u${i}`, email: `u${i}@example.com`, roles: ['editor'] }));
  const statuses = await Promise.all(callers.flatMap((claims) => Array.from({ length: 4 }, async (_, n) => {
    const token = await api.token(claims);
    const project = await api.post('/projects', { name: `${claims.sub} ${n}` }, { token });
    assert.is(project.status, 201, project.text);
    assert.is(project.body.data.owner_id, claims.sub, 'the Owner comes from this request\'s claims');
    const created = await api.post(`/projects/${project.body.data.id}/posts`, { id: `${claims.sub}-${n}`, title: `by ${claims.sub}`, meta: { n } }, { token });
    assert.is(created.status, 201, created.text);
    assert.is(created.body.data.author_id, claims.sub);
    const patched = await api.patch(`/posts/${claims.sub}-${n}`, { meta: { by: claims.sub } }, { token });
    assert.is(patched.status, 200, patched.text);
    assert.equal(patched.body.data.meta, { n, by: claims.sub }, 'merged in one transaction');
    const listed = await api.get(`/posts?title[eq]=${encodeURIComponent(`by ${claims.sub}`)}&sort=id`, { token });
    assert.is(listed.status, 200, listed.text);
    return listed.body.meta.total as number;
  })));
  assert.ok(statuses.every((total) => total >= 1 && total <= 4), JSON.stringify(statuses));
  const owners = await db!.sql`select author_id, count(*)::int as n from app.posts group by 1 order by 1`;
  assert.equal(owners.map((r) => [r.author_id, r.n]), callers.map((c) => [c.sub, 4]));
  assert.equal(gw!.output().match(/"msg":"request failed"/g), null, gw!.output());
});

test.run();
