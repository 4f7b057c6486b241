// CreatedTimestamp: now() on insert, never changed after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';
import { timestampModel } from './timestamps.ts';

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(timestampModel); });
test.after(async () => m?.close());

test('CreatedTimestamp is set once; UpdatedTimestamp on every write', async () => {
  const [a] = await m.as((tx) => tx`insert into app.accounts (email) values ('ts@example.com') returning id, created_at, updated_at`);
  assert.ok(a!.created_at instanceof Date);
  assert.equal(a!.updated_at, a!.created_at);
  await new Promise((r) => setTimeout(r, 20));
  const [b] = await m.as((tx) => tx`update app.accounts set email = 'ts2@example.com' where id = ${a!.id} returning created_at, updated_at`);
  assert.equal(b!.created_at, a!.created_at);
  assert.ok(b!.updated_at > a!.updated_at);
  const err = await m.error((tx) => tx`update app.accounts set created_at = now() - interval '1 day' where id = ${a!.id}`);
  assert.is(err.code, 'PT400');
});

test('the wire: readOnly, always set', () => {
  const p = m.manifest.resources.Account!.properties.created_at!;
  assert.ok(p.readOnly);
});

test('model checks: a single DateTime, not shared with another managed module', () => {
  const acc = (props: Record<string, unknown>) => moduleModel('c', { Account: { collection: 'accounts', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(acc({ c: { type: 'Date', modules: { CreatedTimestamp: {} } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  assert.ok(errorsOf(acc({ c: { type: 'DateTime', modules: { CreatedTimestamp: {}, UpdatedTimestamp: {} } } })).some((e) => e.message.includes('cannot share one property')));
});

test.run();
