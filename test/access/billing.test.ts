// Issue 5 over HTTP, billing model (OrganizationRBAC): every billing row of the shared access table,
// callers as signed tokens, the caller IP from X-Forwarded-For where a row names one (else loopback).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { BILLING } from './support/cases.ts';
import { mismatches, report, viaHttp, type Resolver } from './support/run.ts';
import { resolver } from './support/route.ts';
import { personas, seedBilling } from './support/world.ts';

let api: RunningApi;
let r: Resolver;
const tokens = new Map<string, string | null>();

test.before(async () => {
  api = await startApi(BILLING.model, { explainAccess: true, trustProxy: true });
  const ids = await seedBilling(api.db.sql);
  r = resolver(ids);
  for (const [name, claims] of Object.entries(personas(BILLING.personas, ids))) tokens.set(name, claims && await api.token(claims));
});
test.after(async () => api?.close());

for (const c of BILLING.cases) {
  test(`${c.as} ${c.req}${c.ip ? ` from ${c.ip}` : ''} → ${c.status}: ${c.why}`, async () => {
    const o = await viaHttp(api, tokens.get(c.as) ?? null, c, r);
    const wrong = mismatches(c, o, r);
    assert.equal(wrong, [], report(c, o, wrong));
  });
}

test('every row carries the organization of its creator\'s org claim', async () => {
  const rows = await api.db.sql`select name, organization_id from app.customers order by name`;
  assert.equal(rows.map((x) => [x.name, x.organization_id]), [['C1', 'o1'], ['C2', 'o2'], ['Clerk Co', 'o1']]);
  const [inv] = await api.db.sql`select count(*)::int as n from app.invoices where organization_id is distinct from 'o1' and number like 'INV-1%'`;
  assert.is(inv!.n, 0, 'every o1 invoice is in o1');
});

test('the gateway logged no 5xx', () => {
  assert.equal(api.serverErrors.map((e) => e.split('\n')[0]), []);
});

test.run();
