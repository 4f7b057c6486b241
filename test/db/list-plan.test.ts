// At 1,000,000 posts, a list with an indexed filter and its exact total is served by that index under the
// row-level policies: every statement the engine runs for it (count and page) uses the index on posts,
// none scans the table. Plans are read from auto_explain as the request role runs them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { BENCH_CLAIMS, seedPublishing } from '../../bench/seed.ts';

const ROWS = 1_000_000;
let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, 'examples/publishing.model.json');
  await seedPublishing(db.sql, ROWS);
});
test.after(async () => db?.close());

test('list ?project_id=…&per_page=25 with exact total at 1,000,000 rows: index scans only, no sequential scan of posts', async () => {
  const plans: string[] = [];
  const sql = postgres(db.url, { max: 1, onnotice: (n) => { const m = String(n.message ?? ''); if (/plan:/.test(m)) plans.push(m); } });
  try {
    await sql.unsafe(`LOAD 'auto_explain'`);
    await sql.unsafe(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_level = 'notice'; SET client_min_messages = notice`);
    const args = { filter: { field: 'project_id', op: 'eq', value: 'p7' }, page: 1, per_page: 25, sort: [] };
    const [row] = await sql`select api.dispatch('authenticated', ${JSON.stringify(BENCH_CLAIMS)}::text::jsonb, '', 'posts_list', ${JSON.stringify(args)}::text::jsonb) as r`;
    const result = row!.r as { data: unknown[]; meta: { total: number } };
    assert.ok(result.meta.total > 0 && result.data.length > 0, 'the list found posts');
    const onPosts = plans.filter((p) => /FROM "app"\."posts" t/.test(p));
    assert.ok(onPosts.length >= 2, `the count and the page statements were explained (${onPosts.length})`);
    for (const p of onPosts) {
      assert.not.match(p, /Seq Scan on posts/, `no sequential scan of posts:\n${p}`);
      assert.match(p, /Index Scan using posts_\w+ on posts|Bitmap Index Scan on posts_project_id_idx/, `an index on posts serves it:\n${p}`);
    }
  } finally {
    await sql.end();
  }
});

const list = async (args: Record<string, unknown>) => {
  const [row] = await db.sql`select api.dispatch('authenticated', ${JSON.stringify(BENCH_CLAIMS)}::text::jsonb, '', 'posts_list', ${JSON.stringify(args)}::text::jsonb) as r`;
  return row!.r as { data: Array<{ id: string }>; meta: Record<string, any> };
};

test('count=estimated at 1,000,000 rows: a sampled estimate under the policies; a rare match counted exactly; a cursor page is the offset page', async () => {
  const published = { field: 'status', op: 'eq', value: 'published' };
  const estimated = await list({ filter: published, per_page: 25, sort: [], count: 'estimated' });
  assert.is(estimated.meta.count, 'estimated');
  const exact = await list({ filter: published, per_page: 25, sort: [] });
  assert.equal([exact.meta.count, exact.meta.total], ['exact', ROWS / 4]);
  assert.ok(Math.abs(estimated.meta.total - exact.meta.total) < exact.meta.total * 0.2, `${estimated.meta.total} is near ${exact.meta.total}`);
  const rare = await list({ filter: { field: 'project_id', op: 'eq', value: 'p7' }, per_page: 25, sort: [], count: 'estimated' });
  const rareExact = await list({ filter: { field: 'project_id', op: 'eq', value: 'p7' }, per_page: 25, sort: [] });
  assert.equal([rare.meta.count, rare.meta.total], ['exact', rareExact.meta.total], 'under 1,000 matches the total is exact');

  const before = await list({ page: 2000, per_page: 25, sort: [], count: 'none' });
  const cursor = (await list({ page: 1999, per_page: 25, sort: [], count: 'none' })).meta.next as string;
  const after = await list({ after: cursor, per_page: 25, sort: [], count: 'none' });
  assert.equal(after.data.map((r) => r.id), before.data.map((r) => r.id), 'the cursor page is the offset page');
  // The cursor page's statement starts at the cursor in the key's index, where the offset page reads every row before it.
  const plans: string[] = [];
  const sql = postgres(db.url, { max: 1, onnotice: (n) => { const m = String(n.message ?? ''); if (/plan:/.test(m)) plans.push(m); } });
  try {
    await sql.unsafe(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = 'notice'`);
    await sql`select api.dispatch('authenticated', ${JSON.stringify(BENCH_CLAIMS)}::text::jsonb, '', 'posts_list', ${JSON.stringify({ after: cursor, per_page: 25, sort: [], count: 'none' })}::text::jsonb)`;
  } finally {
    await sql.end();
  }
  const page = plans.find((p) => /jsonb_agg/.test(p) && /FROM "app"\."posts" t/.test(p));
  assert.ok(page, `the page statement was explained (${plans.length} plans)`);
  assert.match(page!, /Index Scan using posts_pkey on posts t[^\n]*\n\s*Index Cond: \(\(id\)::text > /, `the cursor is an index condition on the key:\n${page}`);
});

test.run();
