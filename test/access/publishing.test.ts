// Issue 5 over HTTP, publishing model: every row of the shared access table (support/cases.ts) against
// a real listening gateway, each caller a signed token; the winner is read from Access-Scenario.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { PUBLISHING } from './support/cases.ts';
import { mismatches, report, viaHttp, type Resolver } from './support/run.ts';
import { resolver } from './support/route.ts';
import { personas, seedPublishing } from './support/world.ts';

let api: RunningApi;
let r: Resolver;
const tokens = new Map<string, string | null>();

test.before(async () => {
  api = await startApi(PUBLISHING.model, { explainAccess: true });
  const ids = await seedPublishing(api.db.sql);
  r = resolver(ids);
  for (const [name, claims] of Object.entries(personas(PUBLISHING.personas, ids))) tokens.set(name, claims && await api.token(claims));
});
test.after(async () => api?.close());

for (const c of PUBLISHING.cases) {
  test(`${c.as} ${c.req} → ${c.status}: ${c.why}`, async () => {
    const o = await viaHttp(api, tokens.get(c.as) ?? null, c, r);
    const wrong = mismatches(c, o, r);
    assert.equal(wrong, [], report(c, o, wrong));
  });
}

test('the gateway logged no 5xx', () => {
  assert.equal(api.serverErrors.map((e) => e.split('\n')[0]), []);
});

test.run();
