// EnterpriseRBAC (design.md 4): enterprise_roles hold in every organization of the caller's enterprise,
// on top of the organization confinement of OrganizationRBAC; checked through api.dispatch.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

const model = {
  api: {
    slug: 'ent', version: 'v1', title: 'Enterprise', docsUrl: 'https://docs.example.com', strategy: 'EnterpriseRBAC',
    scenarios: [{ label: 'Accountants keep the books', predicate: { style: 'and', children: [{ type: 'matchOrganizationRole', roles: ['accountant'] }] } }],
  },
  entities: {
    Ledger: { collection: 'ledgers', properties: { id: { type: 'String', primary: true, readOnly: true }, name: { type: 'String', required: true } } },
  },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

const call = async (claims: Record<string, unknown>, fn: string, args: unknown) =>
  (await db.sql`select api.dispatch('authenticated', ${db.sql.json(claims as any)}, '127.0.0.1', ${fn}, ${db.sql.json(args as any)}) as r`)[0]!.r;
async function code(claims: Record<string, unknown>, fn: string, args: unknown): Promise<string> {
  try { await call(claims, fn, args); } catch (err: any) { return err.code; }
  return 'ok';
}

test('an enterprise role counts as an organization role, inside the active organization only', async () => {
  const viaEnterprise = { sub: 'e1', org: 'o1', org_roles: [], enterprise: 'acme', enterprise_roles: ['accountant'] };
  const created = await call(viaEnterprise, 'ledgers_create', { body: { name: 'Q1' } });
  assert.is(created.scenario, 'Accountants keep the books');
  const [row] = await db.sql`select organization_id from app.ledgers where id = ${created.id}`;
  assert.is(row!.organization_id, 'o1');
  // The same enterprise role in another organization of the enterprise: its own books only.
  const elsewhere = { ...viaEnterprise, org: 'o2' };
  assert.is((await call(elsewhere, 'ledgers_list', {})).meta.total, 0);
  assert.is(await code(elsewhere, 'ledgers_read', { id: created.id }), 'PT404');
  // Without the enterprise claim the role does not hold; an org role does.
  assert.is(await code({ sub: 'e2', org: 'o1', org_roles: [], enterprise_roles: ['accountant'] }, 'ledgers_list', {}), 'PT403');
  assert.is((await call({ sub: 'e3', org: 'o1', org_roles: ['accountant'] }, 'ledgers_list', {})).meta.total, 1);
  // No organization at all: no scenario passes.
  assert.is(await code({ sub: 'e4', enterprise: 'acme', enterprise_roles: ['accountant'] }, 'ledgers_list', {}), 'PT403');
});

test.run();
