// Email: stored lowercase, its syntax checked by <table>_<prop>_email; a filter's value is lowered the same way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';

const model = moduleModel('email', {
  Account: {
    collection: 'accounts',
    properties: { id: { type: 'String', primary: true, readOnly: true }, email: { type: 'String', unique: true, modules: { Email: {} } } },
  },
});

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(model); });
test.after(async () => m?.close());

test('Email: stored lowercase; invalid syntax refused by the <table>_<prop>_email check', async () => {
  const [a] = await m.as((tx) => tx`insert into app.accounts (email) values ('First.Last+Tag@Sub.Example.CO') returning email`);
  assert.is(a!.email, 'first.last+tag@sub.example.co');
  for (const bad of ['plain', 'a@b', 'a..b@example.com', '.a@example.com', 'a@-example.com', 'a b@example.com', 'a@example..com', `${'x'.repeat(65)}@example.com`]) {
    const err = await m.error((tx) => tx`insert into app.accounts (email) values (${bad})`);
    assert.is(err.code, '23514', bad);
    assert.is(err.constraint_name, 'accounts_email_email', bad);
  }
  // Lowercasing makes the unique property case-insensitive.
  const dup = await m.error((tx) => tx`insert into app.accounts (email) values ('FIRST.LAST+TAG@sub.example.co')`);
  assert.is(dup.code, '23505');
});

test('a filter on an Email finds the record by the address as sent', async () => {
  const page = await m.call('accounts_list', { filter: { field: 'email', op: 'eq', value: 'First.Last+Tag@SUB.example.co' } });
  assert.is(page.data.length, 1);
});

test('a malformed address through api.dispatch is a 422 naming the email rule', async () => {
  const p = m.problem(await m.refusal('accounts_create', { body: { email: 'nope' } }));
  assert.is(p.status, 422);
  assert.equal((p.errors as Array<{ property: string; rule: string }>).map(({ property, rule }) => ({ property, rule })), [{ property: 'email', rule: 'email' }]);
});

test('model checks: a single String whose enum and default are lowercase', () => {
  const acc = (props: Record<string, unknown>) => moduleModel('e', { Account: { collection: 'accounts', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(acc({ e: { type: 'String', multiple: true, modules: { Email: {} } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  assert.ok(errorsOf(acc({ e: { type: 'String', defaultValue: 'A@example.com', modules: { Email: {} } } })).some((e) => e.rule === 'Email'));
});

test.run();
