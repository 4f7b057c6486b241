// count=estimated over HTTP on a table past the estimate's threshold (110,000 posts, seeded set-based): a
// sampled total under the filters and access rules, near the exact one; rare matches counted exactly (issue 12).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ESTIMATE_EXACT_BELOW } from '../../compiler/query/paging.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

/** Rows in app.posts: lib.page_total samples only on a table of at least 100 x ESTIMATE_EXACT_BELOW rows (by pg_class.reltuples). */
const ROWS = 110_000;
/**
 * How far an estimate may be from the exact count. The sample takes each block of the table with a chance of
 * about 18% here (20,000 of 110,000 rows: some 400 of 2,300 blocks), so the number of blocks it reads, and the
 * estimate with it, varies by about 4.5% (one standard error) even for matches spread evenly over the table;
 * 30 estimates of one filter ranged from -10% to +13%. 25% is over five standard errors: a failure is a bug.
 */
const TOLERANCE = 0.25;

let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  const project = dataOf(await api.post('/projects', { name: 'Estimates' }), 201).id as string;
  // Written as the superuser, with the write-rule triggers off for this transaction only (they judge requests,
  // not a seed), so published rows can be written directly. Every value cycles, so matches spread over all blocks:
  // word_count i % 10; status a quarter each; rating 5 on one row in 1,000.
  await api.db.sql.begin(async (tx) => {
    await tx`SET LOCAL session_replication_role = replica`;
    await tx`INSERT INTO app.posts (id, project_id, title, status, author_id, word_count, rating, created_at, updated_at)
      SELECT 'e' || lpad(i::text, 6, '0'), ${project}, 'Seeded ' || i,
        (ARRAY['draft', 'in_review', 'published', 'archived'])[i % 4 + 1], 'u-seed', i % 10, CASE WHEN i % 1000 = 0 THEN 5 END, now(), now()
      FROM generate_series(1, ${ROWS}::int) i`;
  });
  await api.db.sql`ANALYZE app.posts`;
});
test.after(async () => api?.close());

async function meta(query: string, anon = false): Promise<Record<string, any>> {
  const reply = await api.get(`/posts?${query}`, anon ? { token: null } : {});
  expectStatus(reply, 200, query);
  return reply.body.meta;
}

/** The number of posts matching `where`, counted by the superuser (no access rules). */
async function truth(where: string): Promise<number> {
  const [row] = await api.db.sql.unsafe(`SELECT count(*)::int AS n FROM app.posts WHERE ${where}`);
  return row!.n as number;
}

function near(estimate: unknown, exact: number, what: string): void {
  assert.ok(Number.isInteger(estimate) && (estimate as number) > 0, `${what}: the estimate ${String(estimate)} is a positive whole number`);
  assert.ok(Math.abs((estimate as number) - exact) <= exact * TOLERANCE, `${what}: the estimate ${String(estimate)} is within ${TOLERANCE * 100}% of ${exact}`);
}

test('the table is past the threshold where count=estimated samples', async () => {
  const [row] = await api.db.sql`SELECT reltuples::bigint AS n FROM pg_class WHERE oid = 'app.posts'::regclass`;
  assert.ok(Number(row!.n) >= 100 * ESTIMATE_EXACT_BELOW, `pg_class.reltuples of app.posts is ${String(row!.n)}`);
});

test('count=estimated on a common filter: an estimated total near the exact one; count=exact on the same filter is exact', async () => {
  const exact = await truth('word_count < 3');
  assert.is(exact, (ROWS * 3) / 10);
  const estimated = await meta('word_count[lt]=3&count=estimated&per_page=10');
  assert.is(estimated.count, 'estimated', 'meta.count says the total is estimated');
  near(estimated.total, exact, 'word_count[lt]=3');
  assert.ok(estimated.total >= ESTIMATE_EXACT_BELOW, 'an estimate is never under the threshold');
  assert.type(estimated.next, 'string', 'a full page with an estimated total offers the next cursor');
  assert.equal([(await meta('word_count[lt]=3&count=exact&per_page=10')).count, (await meta('word_count[lt]=3&count=exact&per_page=10')).total], ['exact', exact]);
  // The cursor page counts the same way: the total is of every match, not of what follows the cursor.
  const next = await meta(`word_count[lt]=3&count=estimated&per_page=10&after=${estimated.next}`);
  assert.is(next.count, 'estimated');
  near(next.total, exact, 'word_count[lt]=3 after a cursor');
  assert.equal(api.serverErrors, []);
});

test('count=estimated samples under the access rules: an anonymous caller\'s estimate is of the published posts only', async () => {
  const published = await truth(`status = 'published'`);
  assert.is(published, ROWS / 4);
  const anon = await meta('count=estimated&per_page=1', true);
  assert.is(anon.count, 'estimated', 'meta.count says the total is estimated');
  near(anon.total, published, 'anonymous, no filter');
  assert.equal([(await meta('per_page=1', true)).count, (await meta('per_page=1', true)).total], ['exact', published]);
});

test('count=estimated on a rare match (under the threshold even scaled up) counts exactly, on the same large table', async () => {
  const rare = await truth('rating = 5');
  assert.is(rare, ROWS / 1000);
  const estimated = await meta('rating=5&count=estimated&per_page=1');
  assert.equal([estimated.count, estimated.total], ['exact', rare]);
  const none = await meta('rating=5&count=none&per_page=1');
  assert.equal([none.count, 'total' in none], ['none', false]);
});

test('under OrganizationRBAC the estimate follows the caller\'s organization\'s rows, not the others\'', async () => {
  const member = { label: 'Members', predicate: { style: 'and', children: [{ type: 'matchOrganizationRole', roles: ['any'] }] } };
  const tenants = await startApi({
    api: { slug: 'volume', version: 'v1', title: 'Volume', docsUrl: 'https://volume.example.com/docs', strategy: 'OrganizationRBAC', scenarios: [member] },
    entities: { Note: { collection: 'notes', properties: { id: { type: 'String', primary: true }, n: { type: 'Number', web: { format: 'int32' } } } } },
  });
  try {
    // o2 holds a large table, o1 a small part of it: o1's list was estimated (and its steps told o2's volume).
    await tenants.db.sql.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`INSERT INTO app.notes (id, n, organization_id) SELECT 'n' || i, i % 10, CASE WHEN i % 30 = 0 THEN 'o1' ELSE 'o2' END FROM generate_series(1, ${ROWS}::int) i`;
    });
    await tenants.db.sql`ANALYZE app.notes`;
    const o1 = await tenants.get('/notes?count=estimated&per_page=1', { token: await tenants.token({ sub: 'a', org: 'o1', org_roles: ['member'] }) });
    assert.equal({ count: o1.body.meta.count, total: o1.body.meta.total }, { count: 'exact', total: Math.floor(ROWS / 30) });
    const o2 = await tenants.get('/notes?count=estimated&per_page=1', { token: await tenants.token({ sub: 'b', org: 'o2', org_roles: ['member'] }) });
    assert.is(o2.body.meta.count, 'estimated', 'a large organization is still estimated');
    const exact = ROWS - Math.floor(ROWS / 30);
    assert.ok(Math.abs(o2.body.meta.total - exact) <= exact * TOLERANCE, `${o2.body.meta.total} against ${exact}`);
  } finally {
    await tenants.close();
  }
});

test.run();
