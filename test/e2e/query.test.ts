// The list query language over HTTP (design.md 5): every operator on the types it applies to, JSON
// dot paths with the Integer cast comparing numerically, sort, exact paging totals, projections.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { idsOf, seedPosts } from './support/posts.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  await seedPosts(api);
});
test.after(async () => api?.close());

const qs = (params: Record<string, string>) => new URLSearchParams(params).toString();

async function list(params: Record<string, string>) {
  const reply = await api.get(`/posts?${qs(params)}`);
  expectStatus(reply, 200, qs(params));
  return reply.body;
}

/** [filters, ids expected in any order]: the seed rows of support/posts.ts. */
const FILTERS: Array<[Record<string, string>, string[]]> = [
  [{ status: 'draft' }, ['p1', 'p3', 'p5']], // no operator: eq
  [{ 'status[eq]': 'published' }, ['p2']],
  [{ 'status[ne]': 'draft' }, ['p2', 'p4']],
  [{ 'status[in]': 'in_review,published' }, ['p2', 'p4']],
  [{ 'status[nin]': 'draft,in_review' }, ['p2']],
  [{ 'title[eq]': "O'Brien's fox" }, ['p4']],
  [{ 'title[ne]': 'Delta', 'status[eq]': 'draft' }, ['p1', 'p3']],
  [{ 'title[gte]': 'Delta', 'title[lt]': 'Gamma' }, ['p5']],
  [{ 'title[like]': '*news' }, ['p1']],
  [{ 'title[like]': 'alpha%' }, []], // like is case-sensitive
  [{ 'title[ilike]': 'alpha%' }, ['p1']],
  [{ 'title[ilike]': '*FOX*' }, ['p4']],
  [{ 'title[like]': 'Gamma 100%' }, ['p3']],
  [{ 'rating[eq]': '4.5' }, ['p1']],
  [{ 'rating[gt]': '2' }, ['p1', 'p4']],
  [{ 'rating[gte]': '2' }, ['p1', 'p2', 'p4']],
  [{ 'rating[lt]': '2' }, ['p5']],
  [{ 'rating[lte]': '0.5' }, ['p5']],
  [{ 'rating[in]': '2,5' }, ['p2', 'p4']],
  [{ 'word_count[gt]': '50' }, ['p1', 'p4']],
  [{ 'word_count[lte]': '7' }, ['p3', 'p5']],
  [{ 'word_count[nin]': '0,7,50' }, ['p1', 'p4']],
  [{ 'published_on[eq]': '2024-01-10' }, ['p1', 'p5']],
  [{ 'published_on[gt]': '2024-01-10' }, ['p2']],
  [{ 'published_on[lt]': '2024-01-01' }, ['p4']],
  [{ 'published_on[gte]': '2024-01-10' }, ['p1', 'p2', 'p5']],
  [{ 'reading_slot[eq]': '08:30' }, ['p1', 'p5']],
  [{ 'reading_slot[gt]': '12:00' }, ['p4']],
  [{ 'reading_slot[lte]': '08:30:00' }, ['p1', 'p5']],
  [{ featured: 'true' }, ['p1']],
  [{ 'featured[eq]': 'false' }, ['p2', 'p3', 'p4', 'p5']],
  [{ 'featured[ne]': 'true' }, ['p2', 'p3', 'p4', 'p5']],
  [{ 'created_at[lte]': '2999-01-01T00:00:00Z' }, ['p1', 'p2', 'p3', 'p4', 'p5']],
  [{ 'created_at[gt]': '2999-01-01T00:00:00Z' }, []],
  [{ 'legacyCode[eq]': 'L-1' }, ['p1']],
  [{ 'legacyCode[null]': 'false' }, ['p1']],
  [{ 'body[null]': 'true' }, ['p3']],
  [{ 'rating[null]': 'true' }, ['p3']],
  [{ 'tags_cache[contains]': 'b' }, ['p1', 'p2']],
  [{ 'tags_cache[contains]': 'a,b' }, ['p1']],
  [{ 'tags_cache[null]': 'true' }, ['p3', 'p5']],
  [{ 'meta[contains]': '{"address":{"city":"Paris"}}' }, ['p1']],
  [{ 'meta[null]': 'true' }, ['p4']],
  [{ 'meta.labels[contains]': '["x"]' }, ['p1', 'p5']],
  [{ 'meta.address.city': 'Paris' }, ['p1']],
  [{ 'meta.address.city[ne]': 'Paris', 'meta.address[exists]': 'true' }, ['p2', 'p3']],
  [{ 'meta.address.city[ilike]': 'paris' }, ['p1', 'p3']],
  [{ 'meta.address.city[in]': 'Paris,Berlin' }, ['p1', 'p2']],
  [{ 'meta.address.zip[like]': '7500*' }, ['p1', 'p3']],
  [{ 'meta.address[exists]': 'true' }, ['p1', 'p2', 'p3']],
  [{ 'meta.address.zip[exists]': 'true' }, ['p1', 'p3']],
  [{ 'meta.address.zip[exists]': 'false', 'meta[null]': 'false' }, ['p2', 'p5']],
  [{ 'meta.address[null]': 'true' }, ['p4', 'p5']],
  // meta.priority has an Integer Tier B cast: comparisons are numeric (as text, "10" < "9").
  [{ 'meta.priority[gt]': '9' }, ['p1', 'p3']],
  [{ 'meta.priority[lt]': '10' }, ['p2', 'p5']],
  [{ 'meta.priority[eq]': '100' }, ['p3']],
  [{ 'meta.priority[gte]': '10', 'meta.priority[lte]': '99' }, ['p1']],
  [{ 'meta.priority[in]': '2,100' }, ['p3', 'p5']],
  [{ 'body[search]': 'quick' }, ['p1', 'p4', 'p5']],
  [{ 'body[search]': 'quick -jumps' }, ['p1', 'p5']],
  [{ 'title[search]': 'news' }, ['p1']],
  [{ 'status[eq]': 'draft', 'rating[gte]': '1' }, ['p1']],
];

test('every operator on the types where it makes sense', async () => {
  const wrong: string[] = [];
  for (const [params, expected] of FILTERS) {
    const reply = await api.get(`/posts?${qs(params)}`);
    if (reply.status !== 200) {
      wrong.push(`${qs(params)}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
      continue;
    }
    const got = idsOf(reply.body).sort();
    if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${decodeURIComponent(qs(params))}: got [${got}], expected [${expected}]`);
    if (reply.body.meta?.total !== expected.length) wrong.push(`${qs(params)}: meta.total ${reply.body.meta?.total}`);
  }
  assert.equal(wrong, []);
});

test('operators that make no sense for the type are 400 naming the operator', async () => {
  for (const param of ['featured[gt]=true', 'rating[like]=4*', 'title[contains]=a', 'meta[gt]=1', 'tags_cache[gt]=a',
    'rating[search]=4', 'status[exists]=true', 'cover[eq]=x', 'featured[in]=yes']) {
    const reply = await api.get(`/posts?${param}`);
    assertProblem(reply, 400, api.docsUrl);
  }
});

/** [sort, ids in order] */
const SORTS: Array<[Record<string, string>, string[]]> = [
  [{ sort: 'word_count' }, ['p3', 'p5', 'p2', 'p1', 'p4']],
  [{ sort: '-word_count' }, ['p4', 'p1', 'p2', 'p5', 'p3']],
  [{ sort: '-rating' }, ['p4', 'p1', 'p2', 'p5', 'p3']], // nulls last
  [{ sort: 'meta.priority' }, ['p5', 'p2', 'p1', 'p3', 'p4']], // numeric, nulls last
  [{ sort: '-meta.priority' }, ['p3', 'p1', 'p2', 'p5', 'p4']],
  [{ sort: 'meta.address.city', 'meta.address.city[in]': 'Paris,Berlin' }, ['p2', 'p1']],
  [{ sort: '-meta.address.city', 'meta.address.city[in]': 'Paris,Berlin' }, ['p1', 'p2']],
  [{ sort: 'status,-word_count' }, ['p1', 'p5', 'p3', 'p4', 'p2']],
  [{ sort: 'published_on,id' }, ['p4', 'p1', 'p5', 'p2', 'p3']],
  [{ sort: '-published_on,-id' }, ['p2', 'p5', 'p1', 'p4', 'p3']],
];

test('sort by properties and JSON dot paths, ascending and descending', async () => {
  for (const [params, expected] of SORTS) {
    assert.equal(idsOf(await list(params)), expected, qs(params));
  }
});

test('paging: meta.total is exact under filters; pages partition the rows', async () => {
  const first = await list({ status: 'draft', sort: 'id', per_page: '2' });
  assert.equal(first.meta, { total: 3, count: 'exact', page: 1, per_page: 2, next: first.meta.next });
  assert.type(first.meta.next, 'string');
  assert.equal(idsOf(first), ['p1', 'p3']);
  const second = await list({ status: 'draft', sort: 'id', per_page: '2', page: '2' });
  assert.equal(second.meta, { total: 3, count: 'exact', page: 2, per_page: 2, prev: second.meta.prev });
  assert.type(second.meta.prev, 'string');
  assert.equal(idsOf(second), ['p5']);
  const beyond = await list({ status: 'draft', sort: 'id', per_page: '2', page: '9' });
  assert.equal(beyond.meta, { total: 3, count: 'exact', page: 9, per_page: 2 });
  assert.equal(beyond.data, []);
  const defaults = await list({});
  assert.equal(defaults.meta, { total: 5, count: 'exact', page: 1, per_page: 25 });
  assert.is((await list({ per_page: '100' })).meta.per_page, 100);
});

test('per_page over 100, or page and per_page below 1, is 400', async () => {
  assertProblem(await api.get('/posts?per_page=101'), 400, api.docsUrl, { names: ['per_page'] });
  assertProblem(await api.get('/posts?per_page=0'), 400, api.docsUrl, { names: ['per_page'] });
  assertProblem(await api.get('/posts?page=0'), 400, api.docsUrl, { names: ['page'] });
});

test('include keeps only the named paths, pruning nested JSON', async () => {
  const plain = await list({ include: 'id,title', sort: 'id' });
  assert.equal(Object.keys(plain.data[0]).sort(), ['id', 'title']);
  assert.is(plain.data.length, 5);
  const nested = await list({ include: 'id,meta.address.city', id: 'p1' });
  assert.equal(nested.data, [{ id: 'p1', meta: { address: { city: 'Paris' } } }]);
  const labels = await list({ include: 'meta.labels,meta.priority', id: 'p1' });
  assert.equal(labels.data, [{ meta: { labels: ['x', 'y'], priority: 10 } }]);
});

test('exclude removes the named paths, pruning nested JSON', async () => {
  const [row] = (await list({ exclude: 'meta.address,body', id: 'p1' })).data;
  assert.not.ok('body' in row);
  assert.equal(row.meta, { priority: 10, labels: ['x', 'y'] });
  assert.is(row.title, 'Alpha news');
  const [deep] = (await list({ exclude: 'meta.address.zip', id: 'p1' })).data;
  assert.equal(deep.meta.address, { city: 'Paris' });
});

test('unknown property, operator, sort key or projection path: 400 naming it', async () => {
  assertProblem(await api.get('/posts?nope=1'), 400, api.docsUrl, { names: ['nope'] });
  assertProblem(await api.get('/posts?nope[gt]=1'), 400, api.docsUrl, { names: ['nope'] });
  assertProblem(await api.get('/posts?title[near]=x'), 400, api.docsUrl, { names: ['near'] });
  assertProblem(await api.get('/posts?sort=nope'), 400, api.docsUrl, { names: ['nope'] });
  assertProblem(await api.get('/posts?sort=-nope.deep'), 400, api.docsUrl, { names: ['nope'] });
  assertProblem(await api.get('/posts?include=id,nope'), 400, api.docsUrl, { names: ['nope'] });
  assertProblem(await api.get('/posts?exclude=nope'), 400, api.docsUrl, { names: ['nope'] });
  assertProblem(await api.get('/posts?title.sub[eq]=x'), 400, api.docsUrl, { names: ['title'] });
  // A list property has no order a cursor could page by (its meta.next used to be refused as not ours).
  assertProblem(await api.get('/posts?sort=tags_cache'), 400, api.docsUrl, { names: ['tags_cache', 'list property'] });
  assertProblem(await api.post('/posts/search', { sort: '-tags_cache' }), 400, api.docsUrl, { names: ['tags_cache'] });
  assertProblem(await api.get('/posts?sort=cover'), 400, api.docsUrl, { names: ['cover', 'file property'] });
});

test('values that are not valid for the property type are 400, never a 500', async () => {
  for (const param of ['rating[gt]=abc', 'word_count[eq]=1.5', 'published_on[eq]=2024-13-45', 'reading_slot[lt]=25:99',
    'featured=maybe', 'created_at[gt]=not-a-time', 'word_count[in]=1,x', 'meta.priority[gt]=high', 'body[null]=perhaps']) {
    const reply = await api.get(`/posts?${param}`);
    assert.is(reply.status, 400, `${param}: ${reply.text.slice(0, 200)}`);
    assertProblem(reply, 400, api.docsUrl);
  }
});

test('date and time filter values are ISO 8601, as in bodies: PostgreSQL\'s special inputs are 400', async () => {
  const accepted: string[] = [];
  for (const param of ['published_on[eq]=tomorrow', 'published_on[lt]=today', 'published_on[gt]=epoch', 'published_on[lt]=infinity',
    'published_on[eq]=Jan 10 2024', 'created_at[lte]=now()', 'created_at[gt]=yesterday', 'reading_slot[lt]=allballs']) {
    const reply = await api.get(`/posts?${param.replace(/ /g, '%20')}`);
    if (reply.status !== 400) accepted.push(`${param}: HTTP ${reply.status}`);
  }
  assert.equal(accepted, [], 'filter values a body would refuse (ajv formats) must not be read as PostgreSQL literals');
  const body = await api.post('/posts', { project_id: 'x', title: 'x', published_on: 'tomorrow' });
  assert.is(body.status, 422, 'bodies refuse the same value');
});

test('nested collection lists filter, sort and page the same way', async () => {
  const projects = dataOf(await api.get('/projects?sort=name'));
  const [a] = projects as Array<{ id: string }>;
  const reply = dataOf(await api.get(`/projects/${a!.id}/posts?status=draft&sort=-word_count`));
  assert.equal(reply.map((r: { id: string }) => r.id), ['p1', 'p3']);
});

test.run();
