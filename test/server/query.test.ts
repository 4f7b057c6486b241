// The query language without a database: query strings and search bodies into FilterNode, sort,
// paging and projection, checked against the publishing example's manifest; every bad input is a 400.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { compileModel } from '../../compiler/index.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import { ApiError } from '../../server/problem/types.ts';
import { parseQuery } from '../../server/request/query.ts';
import { parseListQuery } from '../../server/request/list.ts';
import { parseSearch } from '../../server/request/search.ts';
import { publishingModel } from './setup.ts';
import { bodySchemaOf } from '../../compiler/manifest/schemas.ts';

const manifest = buildManifest(compileModel(JSON.parse(readFileSync(publishingModel, 'utf8'))).model);
const posts = manifest.resources.Post!;
const schemaOf = (p: string) => (bodySchemaOf(posts.schemas, 'create') as { properties: Record<string, unknown> }).properties[p];
const list = (qs: string) => parseListQuery(parseQuery(new URLSearchParams(qs)), posts.properties, schemaOf);
const search = (body: Record<string, unknown>) => parseSearch(body, posts.properties, schemaOf);

function refused(fn: () => unknown, mentions: string) {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ApiError);
    assert.is((err as ApiError).status, 400);
    assert.match((err as ApiError).message, mentions);
    return;
  }
  assert.unreachable(`expected a 400 naming ${mentions}`);
}

test('defaults: page 1, per_page 25, no filter', () => {
  const q = list('');
  assert.equal({ page: q.page, per_page: q.per_page, filter: q.filter, sort: q.sort }, { page: 1, per_page: 25, filter: undefined, sort: undefined });
});

test('filters: bare value is eq, ops typed by property, several ANDed', () => {
  assert.equal(list('status=draft').filter, { field: 'status', op: 'eq', value: 'draft' });
  assert.equal(list('rating[gte]=1.5&rating[lt]=4').filter, {
    and: [{ field: 'rating', op: 'gte', value: '1.5' }, { field: 'rating', op: 'lt', value: '4' }],
  });
  assert.equal(list('featured=true').filter, { field: 'featured', op: 'eq', value: true });
  assert.equal(list('status[in]=draft,published').filter, { field: 'status', op: 'in', value: ['draft', 'published'] });
  assert.equal(list('rating[null]=false').filter, { field: 'rating', op: 'null', value: false });
  assert.equal(list('title[like]=He*').filter, { field: 'title', op: 'like', value: 'He*' });
  assert.equal(list('title[search]=hello world').filter, { field: 'title', op: 'search', value: 'hello world' });
  assert.equal(list('tags_cache[contains]=a,b').filter, { field: 'tags_cache', op: 'contains', value: ['a', 'b'] });
});

test('JSON: dot paths typed by cast or schema, contains takes JSON, exists a flag', () => {
  assert.equal(list('meta.address.city[eq]=Paris').filter, { field: 'meta.address.city', op: 'eq', value: 'Paris' });
  assert.equal(list('meta.priority[gt]=2').filter, { field: 'meta.priority', op: 'gt', value: '2' }); // numbers stay text, so numeric keeps every digit
  assert.equal(list('meta[contains]={"address":{"city":"Paris"}}').filter, { field: 'meta', op: 'contains', value: { address: { city: 'Paris' } } });
  assert.equal(list('meta.labels[exists]=true').filter, { field: 'meta.labels', op: 'exists', value: true });
});

test('filters that make no sense are 400 naming the offender', () => {
  refused(() => list('nope=1'), 'Unknown property "nope"');
  refused(() => list('title[between]=1'), 'Unknown filter operator "between"');
  refused(() => list('featured[gt]=true'), 'Operator "gt"');
  refused(() => list('body[search]=x&title[search]=y&status[search]=draft'), 'Operator "search"');
  refused(() => list('title[exists]=true'), 'Operator "exists"');
  refused(() => list('title[contains]=x'), 'Operator "contains"');
  refused(() => list('title.x=1'), 'not a JSON property');
  refused(() => list('password=x'.replace('password', 'meta..x')), 'Malformed');
  refused(() => list('rating=abc'), 'must be a number');
  refused(() => list('featured=yes'), 'true or false');
  refused(() => list('rating[null]=maybe'), 'true or false');
  refused(() => list('meta[contains]={bad'), 'must be JSON');
  refused(() => list('meta[eq]=1'), 'whole JSON');
  refused(() => list('cover[eq]=x'), 'file');
  refused(() => list('tags_cache[eq]=a'), 'multiple');
  refused(() => list('title[eq'), 'malformed');
  refused(() => list('title[eq][x]=1'), 'malformed');
  refused(() => list('title=a&title=b'), 'more than once');
  refused(() => list("title[eq]=x&title[eq]=y"), 'more than once');
});

test('paging, sort and projection are checked', () => {
  const q = list('page=3&per_page=100&sort=-created_at,title,meta.priority&include=id,meta.address.city&exclude=meta.address');
  assert.equal([q.page, q.per_page], [3, 100]);
  assert.equal(q.sort, [{ field: 'created_at', desc: true }, { field: 'title', desc: false }, { field: 'meta.priority', desc: false }]);
  assert.equal(q.projection, { include: ['id', 'meta.address.city'], exclude: ['meta.address'] });
  refused(() => list('per_page=101'), 'at most 100');
  refused(() => list('per_page=0'), 'at least 1');
  refused(() => list('page=0'), 'at least 1');
  refused(() => list('page=1.5'), 'whole number');
  refused(() => list('page=-1'), 'whole number');
  refused(() => list('page=99999999999999999999'), 'at most');
  refused(() => list('sort=nope'), 'Unknown property "nope"');
  refused(() => list('sort=meta'), 'whole JSON');
  refused(() => list('sort=cover'), 'file');
  refused(() => list('sort=title,-title'), 'twice');
  refused(() => list('sort=title,'), 'empty entry');
  refused(() => list('include=nope'), 'Unknown property "nope"');
  refused(() => list('include=title.x'), 'not a JSON property');
  refused(() => list('exclude=meta.'), 'Malformed');
});

test('search bodies nest and/or/not; entries with several props or ops are ANDed', () => {
  const s = search({
    where: { and: [{ title: { ilike: 'h*' }, status: 'draft' }, { or: [{ rating: { null: true } }, { rating: { gt: 1, lte: 4 } }] }, { not: { featured: { eq: true } } }] },
    sort: ['-title'], page: 2, per_page: 10, include: ['id'],
  });
  assert.equal(s.filter, {
    and: [
      { and: [{ field: 'title', op: 'ilike', value: 'h*' }, { field: 'status', op: 'eq', value: 'draft' }] },
      { or: [{ field: 'rating', op: 'null', value: true }, { and: [{ field: 'rating', op: 'gt', value: 1 }, { field: 'rating', op: 'lte', value: 4 }] }] },
      { not: { field: 'featured', op: 'eq', value: true } },
    ],
  });
  assert.equal([s.page, s.per_page, s.sort, s.projection], [2, 10, [{ field: 'title', desc: true }], { include: ['id'] }]);
  assert.equal(search({}).filter, undefined);
});

test('bad search bodies are 400 naming the offender', () => {
  refused(() => search({ wher: {} }), 'Unknown search key "wher"');
  refused(() => search({ where: [] }), 'must be an object');
  refused(() => search({ where: { and: [] } }), 'non-empty array');
  refused(() => search({ where: { or: {} } }), 'non-empty array');
  refused(() => search({ where: {} }), 'is empty');
  refused(() => search({ where: { nope: { eq: 1 } } }), 'Unknown property "nope"');
  refused(() => search({ where: { title: { foo: 1 } } }), 'Unknown filter operator "foo"');
  refused(() => search({ where: { title: {} } }), 'needs an operator');
  refused(() => search({ where: { rating: { in: 3 } } }), 'list of values');
  refused(() => search({ where: { rating: { gt: 'x' } } }), 'must be a number');
  refused(() => search({ where: { title: { eq: 5 } } }), 'must be a string');
  refused(() => search({ per_page: 500 }), 'at most 100');
  refused(() => search({ sort: 5 }), 'comma-separated');
  let deep: Record<string, unknown> = { title: { eq: 'x' } };
  for (let i = 0; i < 40; i++) deep = { not: deep };
  refused(() => search({ where: deep }), 'deeper than');
});

test.run();
