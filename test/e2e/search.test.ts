// POST /<collection>/search (design.md 5): `where` trees nesting and/or/not over every operator,
// with sort, paging and projections in the body; malformed trees are 400 naming what is wrong.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { idsOf, seedPosts } from './support/posts.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let projectA = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  ({ projectA } = await seedPosts(api));
});
test.after(async () => api?.close());

async function search(body: unknown, path = '/posts/search') {
  const reply = await api.post(path, body);
  expectStatus(reply, 200, JSON.stringify(body));
  return reply.body;
}

/** [where, ids expected in any order] over the seed rows of support/posts.ts. */
const TREES: Array<[unknown, string[]]> = [
  [{ and: [{ status: { eq: 'draft' } }] }, ['p1', 'p3', 'p5']],
  [{ and: [{ status: { eq: 'draft' } }, { rating: { gte: 1 } }] }, ['p1']],
  [{ or: [{ title: { ilike: 'alpha%' } }, { word_count: { gt: 500 } }] }, ['p1', 'p4']],
  [{ not: { status: { eq: 'draft' } } }, ['p2', 'p4']],
  [{ and: [{ or: [{ status: { eq: 'draft' } }, { status: { eq: 'published' } }] }, { not: { or: [{ rating: { lt: 1 } }, { rating: { null: true } }] } }] }, ['p1', 'p2']],
  [{ or: [{ and: [{ featured: { eq: true } }, { rating: { gt: 4 } }] }, { and: [{ not: { featured: { eq: true } } }, { rating: { gte: 5 } }] }] }, ['p1', 'p4']],
  [{ not: { not: { id: { in: ['p1', 'p2'] } } } }, ['p1', 'p2']],
  [{ and: [{ status: { in: ['draft', 'published'] } }, { word_count: { nin: [0, 7] } }] }, ['p1', 'p2']],
  [{ 'meta.priority': { gt: 9 } }, ['p1', 'p3']], // Integer cast: numeric
  [{ 'meta.priority': { gte: 2, lt: 10 } }, ['p2', 'p5']], // two operators on one path are ANDed
  [{ 'meta.address.city': { eq: 'Paris' } }, ['p1']],
  [{ 'meta.address.zip': { exists: true } }, ['p1', 'p3']],
  [{ meta: { contains: { address: { city: 'Berlin' } } } }, ['p2']],
  [{ 'meta.labels': { contains: ['y'] } }, ['p1']],
  [{ tags_cache: { contains: ['a', 'b'] } }, ['p1']],
  [{ body: { search: 'quick fox' } }, ['p1', 'p4']],
  [{ body: { null: true } }, ['p3']],
  [{ published_on: { gte: '2024-01-10', lt: '2024-03-01' } }, ['p1', 'p5']],
  [{ reading_slot: { gt: '08:30' } }, ['p2', 'p4']],
  [{ title: { like: "O'Brien%" } }, ['p4']],
  [{ and: [{ status: { ne: 'draft' } }, { or: [{ 'meta.address.city': { eq: 'Berlin' } }, { meta: { null: true } }] }] }, ['p2', 'p4']],
];

test('where trees with nested and / or / not', async () => {
  const wrong: string[] = [];
  for (const [where, expected] of TREES) {
    const reply = await api.post('/posts/search', { where });
    if (reply.status !== 200) {
      wrong.push(`${JSON.stringify(where)}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
      continue;
    }
    const got = idsOf(reply.body).sort();
    if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${JSON.stringify(where)}: got [${got}], expected [${expected}]`);
    if (reply.body.meta?.total !== expected.length) wrong.push(`${JSON.stringify(where)}: meta.total ${reply.body.meta?.total}`);
  }
  assert.equal(wrong, []);
});

test('an empty body, or no where, returns every row with default paging', async () => {
  const all = await search({});
  assert.equal(all.meta, { total: 5, count: 'exact', page: 1, per_page: 25 });
  const empty = await api.call('POST', '/posts/search', { raw: new Uint8Array(0), type: 'application/json' });
  expectStatus(empty, 200);
  assert.is(empty.body.meta.total, 5);
});

test('sort, page and per_page in the body; meta.total stays exact', async () => {
  const where = { status: { in: ['draft', 'in_review'] } };
  const first = await search({ where, sort: '-meta.priority,id', page: 1, per_page: 3 });
  assert.equal(first.meta, { total: 4, count: 'exact', page: 1, per_page: 3, next: first.meta.next });
  assert.type(first.meta.next, 'string');
  assert.equal(idsOf(first), ['p3', 'p1', 'p5']);
  const second = await search({ where, sort: ['-meta.priority', 'id'], page: 2, per_page: 3 });
  assert.equal(idsOf(second), ['p4']);
  assert.equal(second.meta, { total: 4, count: 'exact', page: 2, per_page: 3, prev: second.meta.prev });
  assert.type(second.meta.prev, 'string');
});

test('include and exclude in the body prune nested JSON', async () => {
  const inc = await search({ where: { id: { eq: 'p1' } }, include: ['id', 'meta.address.zip'] });
  assert.equal(inc.data, [{ id: 'p1', meta: { address: { zip: '75001' } } }]);
  const exc = await search({ where: { id: { eq: 'p1' } }, exclude: 'meta.labels,meta.address.city,body' });
  assert.equal(exc.data[0].meta, { address: { zip: '75001' }, priority: 10 });
  assert.not.ok('body' in exc.data[0]);
});

test('search on a nested collection is confined to the parent', async () => {
  const body = await search({ where: { status: { eq: 'draft' } }, sort: 'id' }, `/projects/${projectA}/posts/search`);
  assert.equal(idsOf(body), ['p1', 'p3']);
  assert.is(body.meta.total, 2);
  assertProblem(await api.post('/projects/no-such-project/posts/search', {}), 404, api.docsUrl);
});

test('search on the other collections of the model', async () => {
  const projects = await search({ where: { name: { like: 'Project%' } }, sort: '-name' }, '/projects/search');
  assert.equal(projects.data.map((p: { name: string }) => p.name), ['Project B', 'Project A']);
  dataOf(await api.post('/tags', { slug: 'news', label: 'News' }), 201);
  const tags = await search({ where: { or: [{ slug: { eq: 'news' } }, { label: { eq: 'none' } }] } }, '/tags/search');
  assert.equal(tags.data, [{ slug: 'news', label: 'News' }]);
});

test('malformed trees are 400 naming the problem', async () => {
  const bad: Array<[unknown, string | undefined]> = [
    [{ where: { nope: { eq: 1 } } }, 'nope'],
    [{ where: { title: { near: 'x' } } }, 'near'],
    [{ where: { and: { title: { eq: 'x' } } } }, 'and'],
    [{ where: { and: [] } }, 'and'],
    [{ where: { or: [{ title: { eq: 'x' } }, 'title'] } }, undefined],
    [{ where: { not: [{ title: { eq: 'x' } }] } }, undefined],
    [{ where: [] }, 'where'],
    [{ where: 'title = 1' }, 'where'],
    [{ where: { title: {} } }, 'title'],
    [{ where: { rating: { gt: 'high' } } }, 'rating'],
    [{ where: { status: { in: 'draft' } } }, 'in'],
    [{ where: { title: { eq: { $ne: null } } } }, 'title'],
    [{ where: { 'meta.priority': { gt: 'x' } } }, 'meta.priority'],
    [{ sort: 'nope' }, 'nope'],
    [{ include: ['nope'] }, 'nope'],
    [{ per_page: 101 }, 'per_page'],
    [{ page: 0 }, 'page'],
    [{ page: 1.5 }, 'page'],
    [{ per_page: -1 }, 'per_page'],
    [{ filter: { title: { eq: 'x' } } }, 'filter'],
  ];
  for (const [body, name] of bad) {
    const reply = await api.post('/posts/search', body);
    assert.is(reply.status, 400, `${JSON.stringify(body)}: ${reply.text.slice(0, 200)}`);
    assertProblem(reply, 400, api.docsUrl, name ? { names: [name] } : {});
  }
});

test('search takes no query-string filters: 400 rather than silently ignored', async () => {
  assertProblem(await api.post('/posts/search?status=draft', {}), 400, api.docsUrl, { names: ['status'] });
});

test.run();
