// app.<table>_changes (design 9): the change-log rows a caller may see are those whose record image its read rules
// allow, judged in SQL with the policy's own conditions: owner vs stranger, draft vs final, another organization.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { asRole, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

const docsModel = fileURLToPath(new URL('../compiler/golden/docs.model.json', import.meta.url));

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, docsModel);
});
test.after(async () => db?.close());

/** What `claims` sees of app.docs' changes: "key action status" in log order. */
async function seen(claims: Record<string, unknown>): Promise<string[]> {
  const rows = await asRole(db.sql, 'authenticated', claims, (tx) => tx`select record_key, action, image ->> 'status' as status from app.docs_changes('0', 0, '9223372036854775807', 100000)`);
  return rows.map((r: any) => `${r.record_key} ${r.action} ${r.status}`);
}

test('an owner sees the changes of its drafts, not once final; a stranger sees none; an editor reads but may not list', async () => {
  await db.sql`insert into app.folders (id, name) values ('f1', 'One')`;
  await db.sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', '{"sub":"alice"}', true)`;
    await tx`insert into app.docs (folder_id, title) values ('f1', 'Mine'), ('f1', 'Also mine')`;
  });
  const [first] = await db.sql`select min(id)::text as id from app.docs`;
  await db.sql`update app.docs set title = 'Mine, edited' where id = ${first!.id}`;
  await db.sql`update app.docs set status = 'final' where id = ${first!.id}`;
  await db.sql`update app.docs set deleted_at = now() where id <> ${first!.id}`;
  const second = String(Number(first!.id) + 1);
  assert.equal(await seen({ sub: 'alice' }), [
    `${first!.id} created draft`, `${second} created draft`, `${first!.id} updated draft`, `${second} deleted draft`,
  ], 'the final version is not hers to list; the deleted one is, as it was');
  assert.equal(await seen({ sub: 'bob' }), []);
  assert.equal(await seen({ sub: 'carol', roles: ['editor'] }), [], 'editors read, they do not list');
  const widened = await asRole(db.sql, 'authenticated', { sub: 'bob' }, async (tx) => {
    await tx`select set_config('request.action', 'update', true)`;
    const rows = await tx`select * from app.docs_changes('0', 0, '9223372036854775807', 100000)`;
    const [after] = await tx`select current_setting('request.action') as action`;
    return { n: rows.length, action: after!.action };
  });
  assert.equal(widened, { n: 0, action: 'update' }, 'a session setting another action sees no more, and keeps its setting');
});

test('nothing for a caller no scenario lets list (anonymous)', async () => {
  const rows = await asRole(db.sql, 'anon', (tx) => tx`select * from app.docs_changes('0', 0, '9223372036854775807', 100000)`);
  assert.is(rows.length, 0);
});

test('OrganizationRBAC: a member sees its organization\'s changes, not another\'s', async () => {
  const billing = await freshDatabase();
  try {
    await installModel(billing, fileURLToPath(new URL('../../examples/billing.model.json', import.meta.url)));
    for (const org of ['o1', 'o2']) {
      await billing.sql.begin(async (tx) => {
        await tx`select set_config('request.jwt.claims', ${JSON.stringify({ sub: `u-${org}`, org })}, true)`;
        await tx`insert into app.customers (name) values (${`Customer of ${org}`})`;
      });
    }
    const names = async (claims: Record<string, unknown>) => (await asRole(billing.sql, 'authenticated', claims,
      (tx) => tx`select image ->> 'name' as name from app.customers_changes('0', 0, '9223372036854775807', 100000)`)).map((r: any) => r.name);
    assert.equal(await names({ sub: 'm1', org: 'o1', org_roles: ['member'] }), ['Customer of o1']);
    assert.equal(await names({ sub: 'm2', org: 'o2', org_roles: ['member'] }), ['Customer of o2']);
    assert.equal(await names({ sub: 'm3', org_roles: ['member'] }), [], 'no active organization: nothing');
  } finally {
    await billing.close();
  }
});

test.run();
