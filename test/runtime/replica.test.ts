// DATABASE_READ_URL against a real streaming replica (a primary and a hot standby from the embedded
// binaries): with replay paused, plain reads (read, list, search, linked-record lists, sub-resource reads,
// through each replica of a comma list) show the replica's older state, while writes succeed on the
// primary and a request with a precondition (If-None-Match, If-Match) reads the primary's newest state.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { installModel, type TestDatabase } from '../harness/db.ts';
import { startReplicatedCluster, type ReplicatedCluster } from '../harness/replica.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';
import { dataOf, expectStatus } from '../e2e/support/http.ts';
import { quoteIdent, withAdminClient, withDatabase } from '../../ops/pg/admin.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';

const NAME = 'replicated';
let cluster: ReplicatedCluster | undefined;
let gw: ServedGateway | undefined;
let replica: postgres.Sql | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out waiting until ${what}`);
}

test.before(async () => {
  try {
    cluster = await startReplicatedCluster();
    await withAdminClient(cluster.primaryUrl, (sql) => sql.unsafe(`create database ${quoteIdent(NAME)}`));
    const url = withDatabase(cluster.primaryUrl, NAME);
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await installModel({ name: NAME, url, sql: admin, close: async () => {} } as TestDatabase, 'examples/publishing.model.json');
    await admin.end();
    const own = await gatewayUrl(url, { SET_AUTHENTICATOR_PASSWORD: 'true' });
    replica = postgres(withDatabase(cluster.replicaUrl, NAME), { max: 1, onnotice: () => {} });
    await until(async () => (await replica!`select to_regclass('app.projects') is not null as ok`)[0]?.ok === true, 'the schema reached the replica');
    const readUrl = new URL(own);
    readUrl.port = new URL(cluster.replicaUrl).port;
    // A comma list (with a space): two replica pools, here both on the one standby, so each is read from.
    gw = await startServe({ GATEWAY_DATABASE_URL: own, DATABASE_READ_URL: `${readUrl.toString()}, ${readUrl.toString()}` });
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});

test.after(async () => {
  await gw?.stop();
  await replica?.end({ timeout: 1 });
  await cluster?.stop();
});

test('plain reads come from the replicas; writes and requests with a precondition from the primary', async () => {
  const api = gw!.client('/api/publishing/v1');
  const project = dataOf(await api.post('/projects', { name: 'Before' }), 201);
  dataOf(await api.post('/posts', { id: 'rp', project_id: project.id, title: 'Replicated' }), 201);
  for (const slug of ['news', 'tips']) dataOf(await api.post('/tags', { slug, label: slug }), 201);
  dataOf(await api.put('/posts/rp/tags/news'), 201);
  const ann = dataOf(await api.post('/users', { email: 'ann@example.com', password: 'pw-ann', display_name: 'Ann' }), 201).id;
  const annToken = await api.token({ sub: ann });
  dataOf(await api.put(`/users/${ann}/profile`, { bio: 'Before' }, { token: annToken }));
  await until(async () => (await api.get(`/users/${ann}/profile`)).body?.data?.bio === 'Before'
    && (await api.get(`/users/${ann}/profile`)).body?.data?.bio === 'Before', 'both replica pools have the profile');
  await replica!`select pg_wal_replay_pause()`;
  try {
    const patched = await api.patch(`/projects/${project.id}`, { name: 'After' });
    assert.is(patched.status, 200, 'a write goes to the primary (the replica is read-only)');
    expectStatus(await api.put('/posts/rp/tags/tips'), 201, 'link: the primary');
    dataOf(await api.put(`/users/${ann}/profile`, { bio: 'After' }, { token: annToken }));
    for (let turn = 0; turn < 2; turn++) { // DATABASE_READ_URL's two pools take turns: both are the paused replica
      assert.is(dataOf(await api.get(`/projects/${project.id}`)).name, 'Before', 'read: the paused replica');
      assert.equal(dataOf(await api.get('/projects')).map((p: any) => p.name), ['Before'], 'list: the replica');
      assert.equal(dataOf(await api.post('/projects/search', {})).map((p: any) => p.name), ['Before'], 'search: the replica');
      assert.equal(dataOf(await api.get('/posts/rp/tags')).map((t: any) => t.slug), ['news'], 'linked records: the replica');
      assert.is(dataOf(await api.get(`/users/${ann}/profile`)).bio, 'Before', 'sub-resource read: the replica');
    }
    const fresh = await api.get(`/projects/${project.id}`, { headers: { 'If-None-Match': '"stale"' } });
    assert.is(dataOf(fresh).name, 'After', 'a read with If-None-Match goes to the primary');
    const matched = await api.get(`/projects/${project.id}`, { headers: { 'If-Match': patched.headers.get('etag')! } });
    assert.is(dataOf(matched).name, 'After', 'a read with If-Match (the new ETag) goes to the primary');
    assert.is((await api.post('/projects', { name: 'Second' })).status, 201);
  } finally {
    await replica!`select pg_wal_replay_resume()`;
  }
  await until(async () => dataOf(await api.get(`/projects/${project.id}`)).name === 'After', 'the replica caught up');
  const metrics = await (await fetch(`${gw!.origin}/metrics`)).text();
  assert.match(metrics, 'db_pool_connections_max{pool="replica1"} 10');
  assert.match(metrics, 'db_pool_connections_max{pool="replica2"} 10');
  assert.equal(gw!.output().match(/"msg":"request failed"/g), null, gw!.output());
});

test.run();
