// Keyset paging while other clients write: a walk by meta.next, with rows inserted behind and ahead of its
// cursor between pages and during them, sees every row that existed at the start once, in order (issue 12).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
});
test.after(async () => api?.close());

/** A post of a walk: its key is `c` and six digits, its title `t` and four, so every collation orders them alike. */
interface Row { id: string; title: string; rating: number | null }

/**
 * One sort level as ranks, so that the test orders rows as PostgreSQL does (ascending or descending, NULLS
 * LAST either way) and can make a row that sorts just before or after another at that level.
 */
interface Level {
  rank(row: Row): number;
  /** Ranks run from 0 to max. */
  max: number;
  /** Sets the level's value of `row` to the one of rank `r`. */
  set(row: Row, r: number): void;
}

const MAX_ID = 999_999;
const MAX_TITLE = 9_999;
const RATINGS = 10; // 0, 0.5, …, 5 are ranks 0..10 ascending; null is 11 either way
const idNum = (row: Row) => Number(row.id.slice(1));
const titleNum = (row: Row) => Number(row.title.slice(1));
const levels = {
  id: { rank: idNum, max: MAX_ID, set: (row, r) => { row.id = `c${String(r).padStart(6, '0')}`; } },
  '-id': { rank: (row) => MAX_ID - idNum(row), max: MAX_ID, set: (row, r) => levels.id.set(row, MAX_ID - r) },
  title: { rank: titleNum, max: MAX_TITLE, set: (row, r) => { row.title = `t${String(r).padStart(4, '0')}`; } },
  rating: {
    rank: (row) => (row.rating === null ? RATINGS + 1 : row.rating * 2), max: RATINGS + 1,
    set: (row, r) => { row.rating = r === RATINGS + 1 ? null : r / 2; },
  },
  '-rating': {
    rank: (row) => (row.rating === null ? RATINGS + 1 : RATINGS - row.rating * 2), max: RATINGS + 1,
    set: (row, r) => { row.rating = r === RATINGS + 1 ? null : (RATINGS - r) / 2; },
  },
} satisfies Record<string, Level>;
type LevelName = keyof typeof levels;

/** A `sort` parameter and its levels, the key last (as lib.sort_keys adds it unless the sort names it). */
const SORTS: Array<{ query: string; levels: LevelName[] }> = [
  { query: '', levels: ['id'] },
  { query: 'sort=-rating,title', levels: ['-rating', 'title', 'id'] },
  { query: 'sort=title,-id', levels: ['title', '-id'] },
];

function compare(order: LevelName[], a: Row, b: Row): number {
  for (const name of order) {
    const d = levels[name].rank(a) - levels[name].rank(b);
    if (d !== 0) return d;
  }
  return 0;
}

/** Deterministic random numbers (mulberry32), so that a failing walk can be replayed. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Makes rows with fresh keys: random ones, or ones that sort strictly behind or ahead of a given row. */
class Rows {
  /** Every row made, by key. */
  readonly made = new Map<string, Row>();
  constructor(readonly order: LevelName[], readonly rnd: (n: number) => number) {}

  any(): Row {
    const row = this.draw();
    do levels.id.set(row, 1 + this.rnd(MAX_ID)); while (this.made.has(row.id));
    return this.keep(row);
  }

  /**
   * A row equal to `at` on the levels before one chosen level, strictly before (behind) or after (ahead) it
   * on that level, and random below it: every level of the sort gets its turn, ties on the earlier ones included.
   */
  relative(at: Row, side: 'behind' | 'ahead'): Row {
    for (let attempt = 0; attempt < 100; attempt++) {
      const depth = this.rnd(this.order.length);
      const level = levels[this.order[depth]!];
      const r = level.rank(at);
      if (side === 'behind' ? r === 0 : r === level.max) continue;
      const row = this.draw();
      levels.id.set(row, 1 + this.rnd(MAX_ID));
      for (const name of this.order.slice(0, depth)) levels[name].set(row, levels[name].rank(at));
      level.set(row, side === 'behind' ? this.rnd(r) : r + 1 + this.rnd(level.max - r));
      if (this.made.has(row.id)) continue;
      const d = compare(this.order, row, at);
      assert.ok(side === 'behind' ? d < 0 : d > 0, `made ${JSON.stringify(row)} ${side} ${JSON.stringify(at)}`);
      return this.keep(row);
    }
    throw new Error(`no row ${side} ${JSON.stringify(at)} in 100 attempts`);
  }

  /** A random title and rating (null one time in twelve); the key is set by the caller. */
  private draw(): Row {
    const row: Row = { id: '', title: '', rating: null };
    levels.title.set(row, this.rnd(MAX_TITLE + 1));
    levels.rating.set(row, this.rnd(RATINGS + 2));
    return row;
  }

  private keep(row: Row): Row {
    this.made.set(row.id, row);
    return row;
  }
}

async function newProject(name: string): Promise<string> {
  return dataOf(await api.post('/projects', { name }), 201).id as string;
}

async function insert(project: string, rows: Row[]): Promise<void> {
  await Promise.all(rows.map(async (row) => {
    const reply = await api.post('/posts', { ...row, rating: row.rating ?? undefined, project_id: project });
    expectStatus(reply, 201, `insert ${row.id}`);
  }));
}

/** The query string of the parts given (an empty part, the default sort, is left out). */
const q = (...parts: string[]) => parts.filter((p) => p !== '').join('&');

async function page(query: string): Promise<{ rows: Row[]; meta: Record<string, any> }> {
  const reply = await api.get(`/posts?${query}`);
  expectStatus(reply, 200, query);
  const body = reply.body as { data: Array<Row & Record<string, unknown>>; meta: Record<string, any> };
  // rating is a Number: it comes back as a JSON number (or null when never set).
  return { rows: body.data.map((r) => ({ id: r.id, title: r.title, rating: r.rating ?? null })), meta: body.meta };
}

/** Every row of the project in the sort, read once nothing is being written (offset pages of 100). */
async function everything(filter: string, sort: string): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; ; n++) {
    const { rows } = await page(q(filter, sort, 'per_page=100', `page=${n}`));
    ids.push(...rows.map((r) => r.id));
    if (rows.length < 100) return ids;
  }
}

const ORIGINALS = 30;
const PER_PAGE = 5;
/** Rounds of the walk that insert rows ahead of the cursor (behind it, every round does), so that the walk ends. */
const AHEAD_ROUNDS = 8;

test('a walk by meta.next under concurrent inserts sees every original row once, in sort order, and nothing inserted behind it', async () => {
  for (const [n, sort] of SORTS.entries()) {
    const what = sort.query || 'by key';
    const project = await newProject(`Walk ${n}`);
    const filter = `project_id=${project}`;
    const make = new Rows(sort.levels, random(1000 + n));
    const originals = Array.from({ length: ORIGINALS }, () => make.any());
    expectStatus(await api.post('/posts', originals.map((r) => ({ ...r, rating: r.rating ?? undefined, project_id: project }))), 201, 'bulk create');

    const seen: Row[] = [];
    const behind = new Map<string, Row>(); // inserted behind the cursor of the page that follows
    const mustFollow = new Set<string>(); // inserted ahead of a cursor and committed before the page after it was asked for
    const query = q(filter, sort.query, `per_page=${PER_PAGE}`);
    let body = await page(query);
    seen.push(...body.rows);
    let rounds = 0;
    while (body.meta.next) {
      assert.ok(++rounds < 100, `${what}: the walk ends`);
      const cursor = body.rows[body.rows.length - 1]!;
      const ahead = rounds <= AHEAD_ROUNDS;
      // Committed before the next page is asked for: two behind the cursor, and two ahead of it.
      const settled = [make.relative(cursor, 'behind'), make.relative(cursor, 'behind'),
        ...(ahead ? [make.relative(cursor, 'ahead'), make.relative(cursor, 'ahead')] : [])];
      await insert(project, settled);
      // In flight while the next page is read: one behind the cursor and one ahead of it (that one may or may not be seen).
      const racing = [make.relative(cursor, 'behind'), ...(ahead ? [make.relative(cursor, 'ahead')] : [])];
      for (const row of [...settled, ...racing]) {
        if (compare(sort.levels, row, cursor) < 0) behind.set(row.id, row);
        else if (settled.includes(row)) mustFollow.add(row.id);
      }
      const [next] = await Promise.all([page(`${query}&after=${body.meta.next}`), insert(project, racing)]);
      body = next;
      assert.not.ok('page' in body.meta, 'a cursor page has no page number');
      seen.push(...body.rows);
    }

    const ids = seen.map((r) => r.id);
    for (const row of seen) {
      assert.ok(make.made.has(row.id), `${what}: ${JSON.stringify(row)} is not a row of this walk's project: the filter must hold on cursor pages`);
      assert.equal(row, make.made.get(row.id), `${what}: ${row.id} reads back as written`);
    }
    assert.is(new Set(ids).size, ids.length, `${what}: no row is seen twice: ${JSON.stringify(ids)}`);
    for (const row of originals) assert.ok(ids.includes(row.id), `${what}: original ${row.id} is seen`);
    for (const id of ids) assert.not.ok(behind.has(id), `${what}: ${id}, inserted behind the cursor, is never seen`);
    for (const id of mustFollow) assert.ok(ids.includes(id), `${what}: ${id}, inserted ahead of the cursor before the next page, is seen`);
    for (let i = 1; i < seen.length; i++) {
      assert.ok(compare(sort.levels, seen[i - 1]!, seen[i]!) < 0,
        `${what}: rows in sort order: ${JSON.stringify(seen[i - 1])} before ${JSON.stringify(seen[i])}`);
    }
    // The server's own order of everything, read when no one writes, is the test's order, and the walk follows it.
    const all = await everything(filter, sort.query);
    assert.equal([...all].sort(), [...make.made.keys()].sort(), `${what}: every insert landed`);
    const rowOf = (id: string) => make.made.get(id)!;
    assert.equal(all, [...all].sort((a, b) => compare(sort.levels, rowOf(a), rowOf(b))), `${what}: the test orders rows as the server does`);
    assert.equal(ids, all.filter((id) => ids.includes(id)), `${what}: the walk is the server's order`);
    assert.ok(behind.size > 0 && mustFollow.size > 0, `${what}: rows were inserted on both sides of the cursors`);
  }
  assert.equal(api.serverErrors, []);
});

test('the contrast: offset pages (page=N) under the same inserts behind the position show a row again', async () => {
  const project = await newProject('Offset walk');
  const filter = `project_id=${project}`;
  const make = new Rows(['id'], random(2000));
  const originals = Array.from({ length: 20 }, () => make.any());
  expectStatus(await api.post('/posts', originals.map((r) => ({ ...r, rating: r.rating ?? undefined, project_id: project }))), 201, 'bulk create');
  const ids: string[] = [];
  let previousLast: string | undefined;
  for (let n = 1; n < 50; n++) {
    const { rows } = await page(q(filter, `per_page=${PER_PAGE}`, `page=${n}`));
    const pageIds = rows.map((r) => r.id);
    // Two rows went in before the last row of the page before, so that row moved two places on, onto this page.
    if (previousLast !== undefined && rows.length >= 2) assert.ok(pageIds.includes(previousLast), `page ${n} shows ${previousLast} again: ${JSON.stringify(pageIds)}`);
    ids.push(...pageIds);
    if (rows.length < PER_PAGE) break;
    const last = rows[rows.length - 1]!;
    previousLast = last.id;
    await insert(project, [make.relative(last, 'behind'), make.relative(last, 'behind')]);
  }
  assert.ok(ids.length > new Set(ids).size, `offset paging saw some row twice: ${JSON.stringify(ids)}`);
  assert.equal(api.serverErrors, []);
});

test.run();
