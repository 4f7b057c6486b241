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

test.run();
