// UpdatedTimestamp: now() on every write; a value that changes on every write is never a primary key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';
import { timestampModel } from './timestamps.ts';

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(timestampModel); });
test.after(async () => m?.close());

test('now() on insert and on every update, whatever the statement says', async () => {
  const [a] = await m.as((tx) => tx`insert into app.accounts (email) values ('u@example.com') returning id, updated_at`);
  await new Promise((r) => setTimeout(r, 20));
  const [b] = await m.as((tx) => tx`update app.accounts set email = 'u2@example.com' where id = ${a!.id} returning updated_at`);
  assert.ok(b!.updated_at > a!.updated_at);
  const err = await m.error((tx) => tx`update app.accounts set updated_at = now() - interval '1 day' where id = ${a!.id}`);
  assert.is(err.code, 'PT400', 'readOnly here: a value written is refused');
});

test('model checks: a single DateTime, never a primary key', () => {
  const acc = (props: Record<string, unknown>) => moduleModel('u', { Account: { collection: 'accounts', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(acc({ u: { type: 'String', modules: { UpdatedTimestamp: {} } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  const key = moduleModel('u', { Account: { collection: 'accounts', properties: { id: { type: 'DateTime', primary: true, modules: { UpdatedTimestamp: {} } } } } });
  assert.ok(errorsOf(key).some((e) => e.rule === 'Primary Key' && e.message.includes('UpdatedTimestamp')));
});

test.run();
