// A page whose exact total leaves it empty runs no page statement, and one with no more matches than its end
// finds them first and sorts them: at 100,000 posts a page of 1 from an indexed filter's few matches would
// otherwise walk the whole key index in order (the planner does not know what the policies keep).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { BENCH_CLAIMS, seedPublishing } from '../../bench/seed.ts';

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, 'examples/publishing.model.json');
  await seedPublishing(db.sql, 100_000);
});
test.after(async () => db?.close());

/** The plans of the statements on posts one call runs (auto_explain with ANALYZE, as the request role), and its result. */
async function explained(args: Record<string, unknown>): Promise<{ plans: string[]; result: { data: Array<{ id: string }>; meta: Record<string, any> } }> {
  const plans: string[] = [];
  const sql = postgres(db.url, { max: 1, onnotice: (n) => { const m = String(n.message ?? ''); if (/plan:/.test(m) && /FROM "app"\."posts" t/.test(m)) plans.push(m); } });
  try {
    await sql.unsafe(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_analyze = on; SET auto_explain.log_level = 'notice'`);
    const [row] = await sql`select api.dispatch('authenticated', ${JSON.stringify(BENCH_CLAIMS)}::text::jsonb, '', 'posts_list', ${JSON.stringify(args)}::text::jsonb) as r`;
    return { plans, result: row!.r };
  } finally {
    await sql.end();
  }
}

const rowsRemoved = (plan: string) => [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);

test('a project the caller sees nothing in: the exact total is 0 and no page statement runs', async () => {
  // She is no member of p1000 and wrote none of its posts; archived, none of them is hers to see.
  await db.sql.unsafe(`ALTER TABLE app.posts DISABLE TRIGGER USER;
    UPDATE app.posts SET status = 'archived' WHERE project_id = 'p1000';
    ALTER TABLE app.posts ENABLE TRIGGER USER; ANALYZE app.posts`);
  const none = await explained({ filter: { field: 'project_id', op: 'eq', value: 'p1000' }, per_page: 1, sort: [] });
  assert.equal([none.result.meta.total, none.result.data], [0, []]);
  assert.is(none.plans.length, 1, `only the count ran:\n${none.plans.join('\n')}`);
  const past = await explained({ filter: { field: 'project_id', op: 'eq', value: 'p7' }, page: 5, per_page: 25, sort: [] });
  assert.equal([past.result.meta.total, past.result.data], [100, []], 'a page past the total is empty too');
  assert.is(past.plans.length, 1);
});

test('one post of the project visible, the last in the key\'s order: found by the project\'s index, not a walk of posts_pkey', async () => {
  await db.sql.unsafe(`ALTER TABLE app.posts DISABLE TRIGGER USER;
    UPDATE app.posts SET status = 'published' WHERE id = (SELECT max(id) FROM app.posts WHERE project_id = 'p1000');
    ALTER TABLE app.posts ENABLE TRIGGER USER`);
  const one = await explained({ filter: { field: 'project_id', op: 'eq', value: 'p1000' }, per_page: 1, sort: [] });
  assert.equal([one.result.meta.total, one.result.data.length], [1, 1]);
  const page = one.plans.find((p) => /jsonb_agg/.test(p));
  assert.ok(page, `the page statement was explained (${one.plans.length} plans)`);
  assert.ok(rowsRemoved(page!) < 1000, `the page read the project's rows, not the table's (${rowsRemoved(page!)} removed):\n${page}`);
  assert.match(page!, /posts_project_id_idx/, `the project's index serves the page:\n${page}`);
  // Many matches: the page walks the key's index in order and stops at its end, as before.
  const many = await explained({ filter: { field: 'status', op: 'eq', value: 'published' }, per_page: 25, sort: [] });
  assert.ok(many.result.meta.total > 1000 && many.result.data.length === 25);
  assert.match(many.plans.find((p) => /jsonb_agg/.test(p))!, /Index Scan using posts_pkey/);
});

test('a page with no filter runs its generic plan, never planned anew per call (pages of 25 and of 1, by offset and by cursor)', async () => {
  // PostgreSQL's plan cache would take a custom plan for these (their known LIMIT looks cheaper) and plan them on every call.
  const sql = postgres(db.url, { max: 1 });
  try {
    const list = async (args: Record<string, unknown>) => (await
      sql`select api.dispatch('authenticated', ${JSON.stringify(BENCH_CLAIMS)}::text::jsonb, '', 'posts_list', ${JSON.stringify(args)}::text::jsonb) as r`)[0]!.r;
    const { meta } = await list({ page: 1, per_page: 25, sort: [], count: 'none' });
    for (let i = 0; i < 12; i++) {
      await list({ page: 1 + (i % 3), per_page: 25, sort: [], count: 'none' });
      await list({ page: 1 + i, per_page: 1, sort: [] });
      await list({ after: meta.next, per_page: 25, sort: [], count: 'none' });
    }
    const plans = await sql`select left(statement, 400) as s, generic_plans::int as g, custom_plans::int as c
      from pg_prepared_statements where name like 'lib\_q\_%' and statement like '%json_agg%'`;
    assert.is(plans.length, 2, `the page shapes by offset and by cursor were prepared (${plans.length})`);
    for (const p of plans) assert.equal([p.c, p.g > 0], [0, true], `no custom plan for ${p.s}`);
  } finally {
    await sql.end();
  }
});

test('a page under a parent, called again and again on one connection, still reads the parent\'s rows by its index', async () => {
  const plans: string[] = [];
  const sql = postgres(db.url, { max: 1, onnotice: (n) => { const m = String(n.message ?? ''); if (/plan:/.test(m) && /jsonb_agg/.test(m)) plans.push(m); } });
  try {
    await sql.unsafe(`LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_analyze = on; SET auto_explain.log_level = 'notice'`);
    for (let i = 0; i < 12; i++) {
      const [row] = await sql`select api.dispatch('authenticated', ${JSON.stringify(BENCH_CLAIMS)}::text::jsonb, '', 'posts_list', ${JSON.stringify({ parent: `p${1 + i}`, per_page: 25, sort: [] })}::text::jsonb) as r`;
      assert.is(row!.r.data.length, 25);
    }
    assert.is(plans.length, 12);
    for (const p of plans) assert.ok(rowsRemoved(p) < 1000, `the page read the project's rows, not the table's (${rowsRemoved(p)} removed):\n${p}`);
  } finally {
    await sql.end();
  }
});

test.run();
