// Password: a salted bcrypt hash on every write that changes it; the request roles never read the column.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asRole } from '../harness/db.ts';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';

const model = moduleModel('password', {
  Account: {
    collection: 'accounts',
    properties: {
      id: { type: 'String', primary: true, readOnly: true },
      email: { type: 'String', unique: true },
      password: { type: 'String', writeOnly: true, modules: { Password: {} } },
    },
  },
});

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(model); });
test.after(async () => m?.close());

test('Password: salted bcrypt hash on write, never readable by the request roles', async () => {
  const [a] = await m.as((tx) => tx`insert into app.accounts (email, password) values ('pw@example.com', 'hunter22') returning id`);
  const [stored] = await m.db.sql`select password, extensions.crypt('hunter22', password) = password as ok from app.accounts where id = ${a!.id}`;
  assert.match(stored!.password, /^\$2a\$10\$/);
  assert.ok(stored!.ok, 'the hash verifies the original password');
  const [other] = await m.as((tx) => tx`insert into app.accounts (email, password) values ('pw2@example.com', 'hunter22') returning id`);
  const [hash2] = await m.db.sql`select password from app.accounts where id = ${other!.id}`;
  assert.is.not(hash2!.password, stored!.password, 'salted: equal passwords hash differently');
  for (const role of ['anon', 'authenticated'] as const) {
    try {
      await asRole(m.db.sql, role, (tx) => tx`select password from app.accounts`);
      assert.unreachable('password must not be readable');
    } catch (err: any) {
      assert.is(err.code, '42501', role);
    }
  }
  // Other columns stay readable; an update that does not touch the password keeps the hash.
  await m.as((tx) => tx`update app.accounts set email = 'pw@example.org' where id = ${a!.id}`);
  const [kept] = await m.db.sql`select password from app.accounts where id = ${a!.id}`;
  assert.is(kept!.password, stored!.password);
  await m.as((tx) => tx`update app.accounts set password = 'newpass1' where id = ${a!.id}`);
  const [changed] = await m.db.sql`select extensions.crypt('newpass1', password) = password as ok from app.accounts where id = ${a!.id}`;
  assert.ok(changed!.ok);
});

test('longer than 72 bytes is a 422; the column holds only hashes (<table>_<prop>_password)', async () => {
  const long = await m.error((tx) => tx`insert into app.accounts (email, password) values ('long@example.com', ${'x'.repeat(73)})`);
  assert.is(long.code, 'PT422');
  const [row] = await m.db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'accounts_password_password'`;
  assert.match(row!.def, '$2[abxy]');
});

test('never in a read: the manifest calls it writeOnly and a record leaves it out', async () => {
  assert.ok(m.manifest.resources.Account!.properties.password!.writeOnly);
  const page = await m.call('accounts_list', {});
  for (const r of page.data) assert.not.ok('password' in r);
});

test('model checks: a single String, not a key, unique, indexed, enum, pattern or default', () => {
  const acc = (props: Record<string, unknown>) => moduleModel('p', { Account: { collection: 'accounts', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(acc({ p: { type: 'Number', modules: { Password: {} } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  assert.ok(errorsOf(acc({ p: { type: 'String', unique: true, modules: { Password: {} } } })).some((e) => e.rule === 'Password'));
  assert.ok(errorsOf(acc({ p: { type: 'String', modules: { Password: {}, Owner: {} } } })).some((e) => e.message.includes('cannot share one property')));
});

test.run();
