// Version (spec 2.6, table 3.2): 1 on create whatever was supplied, one more on every write, atomically.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { asRole } from '../harness/db.ts';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';

const model = moduleModel('version', {
  Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true, immutable: true }, title: { type: 'String' }, rev: { type: 'Number', modules: { Version: {} } } } },
});

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(model); });
test.after(async () => m?.close());

test('3.2 create: version is 1 whatever the client supplied', async () => {
  const [d] = await m.as((tx) => tx`insert into app.docs (id, title, rev) values ('d1', 't', 42) returning rev`);
  assert.is(d!.rev, 1);
});

test('3.2 update: version n becomes n+1; a version written by the client is not the new version', async () => {
  const [a] = await m.as((tx) => tx`update app.docs set title = 'u' where id = 'd1' returning rev`);
  assert.is(a!.rev, 2);
  const [b] = await m.as((tx) => tx`update app.docs set rev = 100 where id = 'd1' returning rev`);
  assert.is(b!.rev, 3);
  const [c] = await m.as((tx) => tx`update app.docs set rev = 1 where id = 'd1' returning rev`);
  assert.is(c!.rev, 4, 'it cannot be rolled back either');
});

test('3.2 stale expected version: the guarded update matches no row and the version stays n', async () => {
  const rows = await m.as((tx) => tx`update app.docs set title = 'stale' where id = 'd1' and rev = 2 returning rev`);
  assert.is(rows.length, 0);
  const [d] = await m.db.sql`select rev, title from app.docs where id = 'd1'`;
  assert.equal({ ...d }, { rev: 4, title: 'u' });
});

test('Version: 20 concurrent updates from separate connections each add exactly one', async () => {
  await m.as((tx) => tx`insert into app.docs (id, title) values ('race', 'r')`);
  const clients = Array.from({ length: 20 }, () => postgres(m.db.url, { max: 1, onnotice: () => {} }));
  try {
    await Promise.all(clients.map((c, i) => asRole(c, 'authenticated', { sub: 'u1' }, (tx) => tx`update app.docs set title = ${'r' + i} where id = 'race'`)));
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  const [d] = await m.db.sql`select rev from app.docs where id = 'race'`;
  assert.is(d!.rev, 21);
});

test('the wire: an int32 integer from 1, the ETag, ignored in a create body and expected in an update body', () => {
  const r = m.manifest.resources.Doc!;
  assert.is(r.versionProperty, 'rev');
  assert.is(r.properties.rev!.format, 'int32');
});

test('model checks: an integer Number, one per entity, never a key, never a setting that excludes 1', () => {
  const P = '/entities/Doc/properties';
  const doc = (props: Record<string, unknown>) => moduleModel('v', { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(doc({ rev: { type: 'String', modules: { Version: {} } } })).some((e) => e.pointer === `${P}/rev/modules/Version` && e.rule === 'Semantic Data Alignment'));
  assert.ok(errorsOf(doc({ a: { type: 'Number', modules: { Version: {} } }, b: { type: 'Number', modules: { Version: {} } } })).some((e) => e.rule === 'Single Version'));
  assert.ok(errorsOf(doc({ rev: { type: 'Number', defaultValue: 3, modules: { Version: {} } } })).some((e) => e.rule === 'Version'));
  assert.equal(errorsOf(doc({ rev: { type: 'Number', web: { format: 'int64' }, modules: { Version: {} } } })), []);
});

test.run();
