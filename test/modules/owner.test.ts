// Owner: the caller's sub claim on create, whatever the body says; readOnly here, so never supplied or changed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asRole } from '../harness/db.ts';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';

const model = moduleModel('owner', {
  Account: {
    collection: 'accounts',
    properties: { id: { type: 'String', primary: true, readOnly: true }, email: { type: 'String' }, owner_id: { type: 'String', readOnly: true, modules: { Owner: {} } } },
  },
});

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(model); });
test.after(async () => m?.close());

test('Owner: filled from the caller\'s sub claim; readOnly so it cannot be supplied or changed', async () => {
  const [a] = await m.as((tx) => tx`insert into app.accounts (email) values ('own@example.com') returning id, owner_id`, { sub: 'user-7' });
  assert.is(a!.owner_id, 'user-7');
  const [anon] = await asRole(m.db.sql, 'anon', (tx) => tx`insert into app.accounts (email) values ('anon@example.com') returning owner_id`);
  assert.is(anon!.owner_id, null);
  const err = await m.error((tx) => tx`insert into app.accounts (email, owner_id) values ('x@example.com', 'someone-else')`);
  assert.is(err.code, 'PT400');
  const upd = await m.error((tx) => tx`update app.accounts set owner_id = 'thief' where id = ${a!.id}`);
  assert.is(upd.code, 'PT400');
});

test('rows are looked up by their owner: a B-tree index on the column', async () => {
  const [idx] = await m.db.sql`select indexname from pg_indexes where schemaname = 'app' and indexname = 'accounts_owner_id_idx'`;
  assert.ok(idx);
});

test('model checks: a single String on an entity; matchResourceOwner needs one', () => {
  const acc = (props: Record<string, unknown>, scenarios?: unknown[]) => moduleModel('o', { Account: { collection: 'accounts', properties: { id: { type: 'String', primary: true }, ...props }, ...(scenarios ? { scenarios } : {}) } });
  assert.ok(errorsOf(acc({ o: { type: 'DateTime', modules: { Owner: {} } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  const mine = [{ label: 'Mine', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, { type: 'matchResourceOwner' }] } }];
  assert.ok(errorsOf(acc({}, mine)).some((e) => e.message.includes('Owner module')));
  assert.equal(errorsOf(acc({ o: { type: 'String', modules: { Owner: {} } } }, mine)), []);
});

test.run();
