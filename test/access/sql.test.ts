// Issue 5 without the gateway: the rows of the shared access table run as psql would run them,
// `select api.dispatch('authenticated', claims, ip, '<table>_<action>', args)` as the superuser, and
// must reach the same decisions (status, winner, rows, detail) as over HTTP. One database per model.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { BILLING, PUBLISHING, type Case, type Claims, type Suite } from './support/cases.ts';
import { resolver } from './support/route.ts';
import { mismatches, report, viaSql, type Resolver } from './support/run.ts';
import { personas, seedBilling, seedPublishing } from './support/world.ts';

interface Loaded {
  db: TestDatabase;
  manifest: Manifest;
  r: Resolver;
  who: Record<string, Claims | null>;
}

const loaded = new Map<Suite, Loaded>();

async function load(suite: Suite, seed: (sql: TestDatabase['sql']) => Promise<Record<string, string>>): Promise<void> {
  const db = await freshDatabase();
  loaded.set(suite, { db } as Loaded);
  await installModel(db, suite.model);
  const [row] = await db.sql`select api.manifest() as m`;
  const ids = await seed(db.sql);
  loaded.set(suite, { db, manifest: row!.m as Manifest, r: resolver(ids), who: personas(suite.personas, ids) });
}

test.before(async () => {
  await load(PUBLISHING, seedPublishing);
  await load(BILLING, seedBilling);
});
test.after(async () => {
  for (const { db } of loaded.values()) await db.close();
});

function row(suite: Suite, c: Case) {
  test(`sql ${suite === BILLING ? 'billing' : 'publishing'}: ${c.as} ${c.req}${c.ip ? ` from ${c.ip}` : ''} → ${c.status}: ${c.why}`, async () => {
    const { db, manifest, r, who } = loaded.get(suite)!;
    const o = await viaSql(db.sql, manifest, who[c.as] ?? null, c, r);
    const wrong = mismatches(c, o, r);
    assert.equal(wrong, [], report(c, o, wrong));
  });
}

for (const c of PUBLISHING.cases) row(PUBLISHING, c);
for (const c of BILLING.cases) row(BILLING, c);

test('claims sent with an anonymous call are ignored: anon stays anonymous', async () => {
  const { db } = loaded.get(PUBLISHING)!;
  const admin = { sub: 'someone', roles: ['admin'] };
  const err = await db.sql`select api.dispatch('anon', ${db.sql.json(admin)}, '127.0.0.1', 'projects_list', '{}') as r`.catch((e) => e);
  assert.is(err.code, 'PT401', String(err.message));
});

test('the request roles cannot read past the policies with plain SQL either', async () => {
  const { db, r, who } = loaded.get(PUBLISHING)!;
  const ids = await db.sql.begin(async (tx) => {
    await tx`select set_config('role', 'anon', true), set_config('request.action', 'list', true)`;
    return tx`select id from app.posts order by id`;
  });
  const [listed] = await db.sql`select api.dispatch('anon', '{}', '127.0.0.1', 'posts_list', '{"per_page": 100}') as r`;
  const viaApi = (listed!.r.data as Array<{ id: string }>).map((p) => p.id).sort();
  assert.ok(viaApi.length > 0 && !viaApi.includes('a-del'), 'the API lists published, live posts only');
  assert.equal(ids.map((x) => x.id), viaApi, 'anonymous: plain SQL sees what the API lists (published, not soft-deleted)');
  const dan = await db.sql.begin(async (tx) => {
    await tx`select set_config('role', 'authenticated', true), set_config('request.action', 'read', true),
      set_config('request.jwt.claims', ${JSON.stringify(who.dan)}, true)`;
    return tx`select id from app.projects`;
  });
  assert.equal(dan.map((x) => x.id), [r.deep('@PB')], 'dan sees the project he owns');
});

test.run();
