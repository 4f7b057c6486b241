// Keyset paging and count modes over HTTP: walking a list forwards by meta.next and backwards by
// meta.prev visits every row once in the order of the sort (nulls and ties included), cursors are checked
// (another sort, garbage, both directions, with page: 400), and count=exact|estimated|none shape meta.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { idsOf } from './support/posts.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
const N = 23;
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  const project = dataOf(await api.post('/projects', { name: 'Keyset' }), 201).id as string;
  for (let i = 1; i <= N; i++) {
    // Ratings repeat and some are missing, so ties and nulls are crossed by the cursors.
    const rating = i % 5 === 0 ? undefined : (i % 4) + 0.5;
    dataOf(await api.post('/posts', { id: `k${String(i).padStart(2, '0')}`, project_id: project, title: `Post ${i % 3}`, ...(rating === undefined ? {} : { rating }) }), 201);
  }
});
test.after(async () => api?.close());

async function page(query: string) {
  const reply = await api.get(`/posts?${query}`);
  expectStatus(reply, 200, query);
  return reply.body as { data: Array<{ id: string }>; meta: Record<string, any> };
}

const SORTS = ['', 'sort=-rating,title', 'sort=title,-id', 'sort=rating'];

test('forwards by meta.next and backwards by meta.prev: every row once, in the offset order', async () => {
  for (const sort of SORTS) {
    const all = idsOf(await page(`${sort}&per_page=100`));
    assert.is(all.length, N);
    const forward: string[] = [];
    let body = await page(`${sort}&per_page=4`);
    assert.not.ok(body.meta.prev, 'the first page has no prev');
    forward.push(...idsOf(body));
    while (body.meta.next) {
      body = await page(`${sort}&per_page=4&after=${body.meta.next}`);
      assert.not.ok('page' in body.meta, 'a cursor page has no page number');
      forward.push(...idsOf(body));
    }
    assert.equal(forward, all, `forwards, ${sort || 'by key'}`);
    const backward: string[] = [...idsOf(body)];
    while (body.meta.prev) {
      body = await page(`${sort}&per_page=4&before=${body.meta.prev}`);
      backward.unshift(...idsOf(body));
    }
    assert.equal(backward, all, `backwards, ${sort || 'by key'}`);
  }
});

test('an offset page offers cursors both ways; a filter holds across pages; search takes cursors in its body', async () => {
  const second = await page('per_page=5&page=2');
  assert.equal([second.meta.page, second.meta.total, second.meta.count], [2, N, 'exact']);
  const before = await page(`per_page=5&before=${second.meta.prev}`);
  assert.equal(idsOf(before), idsOf(await page('per_page=5&page=1')));
  const after = await page(`per_page=5&after=${second.meta.next}`);
  assert.equal(idsOf(after), idsOf(await page('per_page=5&page=3')));

  const filtered = await page('title=Post%201&per_page=3');
  const next = await page(`title=Post%201&per_page=3&after=${filtered.meta.next}`);
  assert.ok(idsOf(next).length > 0 && idsOf(next).every((id) => Number(id.slice(1)) % 3 === 1), JSON.stringify(idsOf(next)));
  assert.is(next.meta.total, filtered.meta.total, 'the total counts every match, not what follows the cursor');

  const searched = await api.post('/posts/search', { where: { title: { eq: 'Post 1' } }, per_page: 3, after: filtered.meta.next });
  expectStatus(searched, 200);
  assert.equal(idsOf(searched.body), idsOf(next));
});

test('count=none leaves the total out; estimated counts exactly under the threshold; exact is the default', async () => {
  const none = await page('count=none&per_page=2');
  assert.equal([none.meta.count, 'total' in none.meta, none.meta.per_page], ['none', false, 2]);
  assert.ok(none.meta.next, 'the next cursor does not need a count');
  const estimated = await page('count=estimated');
  assert.equal([estimated.meta.count, estimated.meta.total], ['exact', N]);
  assert.equal([(await page('')).meta.count, (await page('')).meta.total], ['exact', N]);
});

test('cursors are checked: another sort, garbage, a changed value type, both directions, with page, bad count: 400', async () => {
  const first = await page('sort=title&per_page=2');
  const cases: Array<[string, string]> = [
    [`sort=-title&after=${first.meta.next}`, 'another sort'],
    ['after=bm90LWEtY3Vyc29y', 'not one this API gave out'],
    ['after=%%%', 'cursor from meta.next'],
    [`after=${first.meta.next}&before=${first.meta.next}&sort=title`, 'exclude each other'],
    [`page=2&after=${first.meta.next}&sort=title`, 'exclude each other'],
    ['count=maybe', 'count'],
  ];
  for (const [query, detail] of cases) {
    const reply = await api.get(`/posts?${query}`);
    assertProblem(reply, 400, api.docsUrl, { code: 'E_BAD_REQUEST' });
    assert.match(reply.body.detail, detail, query);
  }
  // A cursor whose key holds a value of the wrong type for its column.
  const forged = Buffer.from(JSON.stringify({ k: [{ x: 1 }, 'k01'], s: [{ field: 'title', desc: false }] })).toString('base64url');
  assertProblem(await api.get(`/posts?sort=title&after=${forged}`), 400, api.docsUrl, { code: 'E_BAD_REQUEST' });
  const relation = await api.get('/posts/k01/tags?after=abc');
  assertProblem(relation, 400, api.docsUrl, { code: 'E_BAD_REQUEST' });
  assert.equal(api.serverErrors, []);
});

test.run();
