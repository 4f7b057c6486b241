// Tables of malformed and hostile requests for hostile.test.ts: bad JSON, wrong types, SQL in filter
// values and names, huge numbers, NUL and unicode, unknown operators, deep nesting, absurd paging,
// repeated parameters, long strings, arrays for objects and prototype-pollution keys.
import { randomBytes } from 'node:crypto';
import type { CallOptions } from './http.ts';

export interface HostileCase {
  group: string;
  method: string;
  /** Below the API's base path, unless `absolute`. */
  path: string;
  absolute?: boolean;
  opts?: CallOptions;
}

/** What the seed of hostile.test.ts created: the records the requests aim at. */
export interface Targets {
  project: string;
  otherProject: string;
  post: string;
  user: string;
  tag: string;
  comment: number;
}

export const SQL_STRINGS = [
  "'; drop table app.posts; --",
  '") or 1=1 --',
  "' or '1'='1",
  '1; delete from app.posts',
  "x' union select password from app.users --",
  '$$; drop schema app cascade; $$',
];

/** Names used as filter, sort and projection paths; none is a property of posts. */
export const HOSTILE_NAMES = [
  ...SQL_STRINGS, "title'", 'title"', '"title"', 'title;', 'title--', 'title/*', 'title) or (1=1',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'password', '_rev', '_modified_at', 'deleted_at',
  't.title', 'app.posts.title', 'TITLE', 'title\u0000', 'tïtle', '💩', 'meta..address', '.meta', 'title.', 'x'.repeat(3000),
];

const deep = (open: string, leaf: string, close: string, depth: number) => open.repeat(depth) + leaf + close.repeat(depth);
const json = (text: string): CallOptions => ({ raw: text, type: 'application/json' });

export function hostileCases(t: Targets): HostileCase[] {
  const cases: HostileCase[] = [];
  const add = (group: string, method: string, path: string, opts?: CallOptions, absolute = false) =>
    cases.push({ group, method, path, ...(opts ? { opts } : {}), ...(absolute ? { absolute } : {}) });

  // Bad JSON, on every route that takes a body.
  const badJson = ['{', '{"title":', '{title: "x"}', "{'title':'x'}", '{"title":"x"}}', '{"title":"x",}', '[', 'NaN', 'undefined',
    '{"title":"\\x41"}', '{"title":"\\ud800"}', '\u0000', '{"a":1}{"b":2}', '{"title":"x"} // comment'];
  const bodyRoutes: Array<[string, string]> = [['POST', '/projects'], ['POST', '/posts'], ['PATCH', `/posts/${t.post}`], ['PUT', `/tags/${t.tag}`],
    ['POST', '/posts/search'], ['PUT', `/projects/${t.project}/members/${t.user}`], ['PUT', `/users/${t.user}/profile`]];
  for (const [method, path] of bodyRoutes) for (const text of badJson) add('bad JSON', method, path, json(text));

  // Arrays and scalars where an object is expected.
  for (const [method, path] of bodyRoutes) {
    for (const text of ['[]', '[{"title":"x","name":"x"}]', '"x"', '1e400', 'null', '[{"op":"replace","path":"/title","value":"x"}]']) add('not an object', method, path, json(text));
  }

  // Wrong types and values that must be refused, on create, replace and patch.
  const p = { project_id: t.project, title: 'ok' };
  const wrong: Record<string, unknown[]> = {
    title: [123, true, [], {}, null, '', ' ', 'x'.repeat(300), 'a\u0000b', ['x']],
    rating: ['4', true, [], {}, 99999999999999999999999, -1, 0.25, 'NaN'],
    word_count: [99999999999999999999999, 2147483648, -1, 1.5, '1', [1]],
    published_on: ['2024-13-01', 'tomorrow', 20240101, '0000-00-00', `2024-01-01${SQL_STRINGS[0]}`],
    reading_slot: ['24:00', 'noon', 830, '12:00; drop'],
    status: [SQL_STRINGS[0], 'DRAFT', 'published', 1],
    featured: ['yes', 1, 'true', []],
    tags_cache: ['a', [[]], [{}], { a: 1 }, [null]],
    meta: ['x', [], 5, true, { priority: '1; drop table app.posts' }, { priority: 1.5 }, { address: [] }, { labels: [1] }],
    author_id: [SQL_STRINGS[0]],
    created_at: ['2020-01-01T00:00:00Z'],
  };
  for (const [prop, values] of Object.entries(wrong)) {
    for (const v of values) {
      add('wrong types', 'POST', '/posts', { body: { ...p, [prop]: v } });
      // A later move to published is allowed (initialStatuses govern creation only).
      if (!(prop === 'status' && v === 'published')) add('wrong types', 'PATCH', `/posts/${t.post}`, { body: { [prop]: v } });
    }
  }
  // Spec 7: a body version that is not a positive integer is 422 (strings, floats and negatives).
  for (const v of ['2; drop', 'x', -1, 0, 1.5]) add('wrong types', 'PATCH', `/posts/${t.post}`, { body: { version: v } });
  add('wrong types', 'POST', '/posts', json(`{"project_id":"${t.project}","title":"x","rating":1e400}`));
  add('wrong types', 'POST', '/posts', json(`{"project_id":"${t.project}","title":"x","word_count":-1e400}`));
  add('wrong types', 'POST', '/posts', { body: { ...p, project_id: SQL_STRINGS[2] } });
  add('wrong types', 'POST', '/posts', { body: { ...p, project_id: 42 } });
  add('wrong types', 'POST', '/tags', { body: { slug: SQL_STRINGS[0], label: 'x' } });
  add('wrong types', 'POST', '/tags', { body: { slug: 'ünïcödé', label: 'x' } });
  add('wrong types', 'POST', '/projects', { body: { name: 'nul\u0000byte' } });
  add('wrong types', 'POST', '/users', { body: { email: `a@b.c${SQL_STRINGS[0]}` } });
  add('wrong types', 'POST', '/users', { body: { email: 'x'.repeat(300) + '@example.com' } });
  add('wrong types', 'PUT', `/projects/${t.project}/members/${t.user}`, { body: { role: `editor${SQL_STRINGS[0]}` } });
  add('wrong types', 'PUT', `/projects/${t.project}/members/${t.user}`, { body: { role: ['editor'] } });
  add('wrong types', 'PUT', `/projects/${t.project}/members/${t.user}`, { body: { role: 'editor', status: { $ne: null } } });
  add('wrong types', 'PUT', `/users/${t.user}/profile`, { body: { bio: 42 } });
  add('wrong types', 'PUT', `/users/${t.user}/profile`, { body: { bio: 'x', user_id: 'someone-else' } });

  // Unknown body keys, prototype pollution among them.
  for (const key of ['__proto__', 'constructor', 'prototype', 'title; drop table app.posts', '"title"', '', 'title\u0000', 'TITLE', '_rev', 'deleted_at']) {
    const body = `{"project_id":"${t.project}","title":"x",${JSON.stringify(key)}:{"polluted":"yes","prototype":{"polluted":"yes"}}}`;
    add('unknown keys', 'POST', '/posts', json(body));
    add('unknown keys', 'PATCH', `/posts/${t.post}`, json(`{${JSON.stringify(key)}:{"polluted":"yes"}}`));
    add('unknown keys', 'PUT', `/projects/${t.project}/members/${t.user}`, json(`{${JSON.stringify(key)}:{"polluted":"yes"}}`));
  }
  add('unknown keys', 'PATCH', `/posts/${t.post}`, json(`{"project_id":"${t.otherProject}","meta":{"__proto__":{"polluted":"yes"}}}`));

  // Hostile names as filter, sort and projection paths, in the query string and in search bodies.
  for (const name of HOSTILE_NAMES) {
    const q = encodeURIComponent(name);
    add('hostile names', 'GET', `/posts?${q}=1`);
    add('hostile names', 'GET', `/posts?${q}[eq]=1`);
    add('hostile names', 'GET', `/posts?sort=-${q}`);
    add('hostile names', 'GET', `/posts?include=id,${q}`);
    add('hostile names', 'GET', `/posts?exclude=${q}`);
    add('hostile names', 'POST', '/posts/search', { body: { where: { and: [{ [name]: { eq: 1 } }] } } });
    add('hostile names', 'POST', '/posts/search', { body: { sort: [name] } });
  }
  for (const path of ["meta.a'b", 'meta.a"b', 'meta.x) or (1=1', "meta.address.city'; drop table app.posts; --"]) {
    add('hostile names', 'GET', `/posts?${encodeURIComponent(path)}[eq]=1`);
    add('hostile names', 'GET', `/posts?sort=${encodeURIComponent(path)}`);
  }

  // SQL and nonsense in values of typed filters (strings are in READS below: they must just not match).
  const typed: Record<string, string[]> = {
    rating: ['1e400', '-1e400', 'NaN', 'Infinity', '0x10'],
    word_count: ['99999999999999999999999', '1.5', '2147483648'],
    published_on: ['2024-02-30', '2024-00-10', '10/01/2024x'],
    reading_slot: ['25:00', '12:60', 'noon?'],
    featured: ['1', 'yes', 'TRUE '],
    created_at: ['2024-13-01T00:00:00Z', '2024-01-01 25:00'],
    'meta.priority': ['99999999999999999999999', '1.5e400', 'ten'],
  };
  for (const [field, values] of Object.entries(typed)) {
    for (const v of [...SQL_STRINGS.slice(0, 3), ...values]) {
      add('typed values', 'GET', `/posts?${field}[gt]=${encodeURIComponent(v)}`);
      add('typed values', 'GET', `/posts?${field}[in]=1,${encodeURIComponent(v)}`);
    }
  }
  add('typed values', 'GET', `/posts?body[null]=${encodeURIComponent(SQL_STRINGS[1]!)}`);
  add('typed values', 'GET', `/posts?meta.address[exists]=${encodeURIComponent(SQL_STRINGS[0]!)}`);
  add('typed values', 'GET', `/comments?id[eq]=${encodeURIComponent(SQL_STRINGS[3]!)}`);
  add('typed values', 'GET', '/comments?id[gt]=99999999999999999999999');
  add('typed values', 'POST', '/posts/search', { body: { where: { rating: { gt: SQL_STRINGS[0] } } } });
  add('typed values', 'POST', '/posts/search', { body: { where: { word_count: { in: [1, SQL_STRINGS[1]] } } } });
  add('typed values', 'POST', '/posts/search', json('{"where":{"rating":{"gt":1e400}}}'));
  add('typed values', 'POST', '/posts/search', { body: { where: { title: { eq: { $gt: '' } } } } });
  add('typed values', 'POST', '/posts/search', { body: { where: { title: { eq: ['a', 'b'] } } } });

  // Unknown and malformed operators.
  for (const key of ['title[regex]', 'title[EQ]', 'title[]', 'title[eq][eq]', 'title[eq', '[eq]', 'title]eq[', 'title[not.eq]',
    'title[eq;drop table app.posts]', 'title[__proto__]', 'title[constructor]', 'title[toString]', `title[${SQL_STRINGS[1]}]`, 'title[%00]']) {
    add('operators', 'GET', `/posts?${encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')}=x`);
  }
  for (const op of ['regex', '$where', '__proto__', 'constructor', 'EQ', SQL_STRINGS[0]!]) {
    add('operators', 'POST', '/posts/search', json(`{"where":{"title":{${JSON.stringify(op)}:"x"}}}`));
  }

  // Deep nesting: JSON bodies and search trees 5000 levels deep.
  add('deep nesting', 'POST', '/posts/search', json(`{"where":${deep('{"not":', '{"title":{"eq":"x"}}', '}', 5000)}}`));
  add('deep nesting', 'POST', '/posts/search', json(`{"where":${deep('{"and":[', '{"title":{"eq":"x"}}', ']}', 5000)}}`));
  add('deep nesting', 'POST', '/posts/search', json(`{"where":${deep('{"or":[{"title":{"eq":"x"}},', '{"title":{"eq":"y"}}', ']}', 200)}}`));
  add('deep nesting', 'POST', '/posts/search', json(`{"where":{"title":{"eq":${deep('[', '1', ']', 5000)}}}}`));
  add('deep nesting', 'POST', '/posts', json(deep('[', '1', ']', 5000)));
  add('deep nesting', 'POST', '/posts', json(`{"title":"x","project_id":"no-such-project","meta":${deep('{"a":', '1', '}', 5000)}}`));
  add('deep nesting', 'POST', '/posts', json(`{"title":"x","project_id":"${t.project}","meta":${deep('[', '1', ']', 5000)}}`));
  add('deep nesting', 'PATCH', `/posts/${t.post}`, json(`{"project_id":"${t.otherProject}","meta":${deep('{"a":', '1', '}', 5000)}}`));
  add('deep nesting', 'PATCH', `/posts/${t.post}`, json(`{"title":"","meta":{"labels":${deep('[', '1', ']', 5000)}}}`));
  add('deep nesting', 'PUT', `/projects/${t.project}/members/${t.user}`, json(`{"role":${deep('{"a":', '1', '}', 5000)}}`));

  // Absurd paging, on lists, relation lists and search bodies.
  for (const [k, v] of [['page', '0'], ['page', '-1'], ['page', '1.5'], ['page', 'abc'], ['page', ''], ['page', '1e3'], ['page', '99999999999999999999'],
    ['page', '2147483648'], ['page', '0x10'], ['page', ' 1'], ['per_page', '0'], ['per_page', '101'], ['per_page', '1000000'], ['per_page', '-5'],
    ['per_page', '1e2'], ['per_page', ''], ['per_page', 'NaN'], ['per_page', 'Infinity'], ['per_page', SQL_STRINGS[3]!]] as const) {
    add('paging', 'GET', `/posts?${k}=${encodeURIComponent(v)}`);
    add('paging', 'GET', `/posts/${t.post}/tags?${k}=${encodeURIComponent(v)}`);
  }
  for (const v of ['-1', '0', '1.5', '"1; drop"', '1e400', '{}', '[]', 'null', 'true', '99999999999999999999']) {
    add('paging', 'POST', '/posts/search', json(`{"page":${v}}`));
    add('paging', 'POST', '/posts/search', json(`{"per_page":${v}}`));
  }

  // Repeated parameters, and parameters a route does not take.
  for (const q of ['title=a&title=b', 'sort=id&sort=title', 'include=id&include=title', 'title[eq]=a&title[eq]=a', 'page=1&page=1', 'per_page=5&per_page=6']) {
    add('repeated', 'GET', `/posts?${q}`);
  }
  for (const q of ['permanent=yes', 'permanent=1', 'permanent=true&permanent=true', 'title=x', 'sort=id', 'page=1']) add('repeated', 'DELETE', `/posts/${t.post}?${q}`);
  add('repeated', 'POST', `/posts/${t.post}/restore?title=x`);
  add('repeated', 'PUT', `/posts/${t.post}/tags/${t.tag}?role=x`);
  add('repeated', 'PATCH', `/posts/${t.post}?sort=id`, { body: { title: 'x' } });

  // Paths: NUL, unicode, SQL, traversal, huge or odd keys.
  const ids = ['%00', '%F0%9F%92%A9', '%FF', '%E2%80%AE', encodeURIComponent(SQL_STRINGS[0]!), encodeURIComponent(SQL_STRINGS[1]!), '..%2F..%2Fetc%2Fpasswd', 'x'.repeat(4000)];
  for (const id of ids) {
    add('paths', 'GET', `/posts/${id}`);
    add('paths', 'PATCH', `/posts/${id}`, { body: { title: 'x' } });
    add('paths', 'DELETE', `/posts/${id}`);
    add('paths', 'GET', `/projects/${id}/posts`);
    add('paths', 'PUT', `/posts/${t.post}/tags/${id}`);
    add('paths', 'PUT', `/users/${id}/profile`, { body: { bio: 'x' } });
  }
  for (const id of ['1e400', '99999999999999999999999', '-1', '0x10', '1.5', '%00', `${t.comment}%00`, `${t.comment}%20or%201%3D1`]) {
    add('paths', 'GET', `/comments/${id}`);
    add('paths', 'DELETE', `/comments/${id}`);
  }
  add('paths', 'DELETE', `/posts/${t.post}/tags/${encodeURIComponent(SQL_STRINGS[2]!)}`);
  add('paths', 'GET', '/posts%2Fp1');
  add('paths', 'GET', `/posts/${t.post}%2Ftags`);
  for (const abs of ['/API/publishing/v1/posts', '/api/publishing/v1%00/posts', '/api/publishing/v1/posts%00', '/api/publishing/v1//posts', '/api/publishing/v1/posts/', '/api/%2e%2e/etc/passwd']) {
    add('paths', 'GET', abs, undefined, true);
  }

  // Methods a route does not answer.
  for (const [method, path] of [['PATCH', '/posts'], ['DELETE', '/posts'], ['PUT', '/posts'], ['POST', `/posts/${t.post}`], ['PUT', `/posts/${t.post}/restore`],
    ['GET', `/posts/${t.post}/restore`], ['POST', `/posts/${t.post}/tags`], ['PATCH', `/users/${t.user}/profile`], ['DELETE', `/users/${t.user}/profile`], ['PROPFIND', '/posts']] as const) {
    add('methods', method, path, method === 'GET' || method === 'DELETE' || method === 'PROPFIND' ? {} : { body: { title: 'x' } });
  }

  // Media types and sizes.
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/jsonx', 'multipart/form-data; boundary=x', 'json', 'application/javascript']) {
    add('media', 'POST', '/projects', { raw: '{"name":"x"}', type });
    add('media', 'PATCH', `/posts/${t.post}`, { raw: '{"title":"x"}', type });
  }
  add('media', 'POST', '/projects', { raw: new TextEncoder().encode('{"name":"untyped"}') });
  add('media', 'POST', '/projects', json(JSON.stringify({ name: 'x', pad: 'y'.repeat(2 * 1024 * 1024) })));
  add('media', 'PATCH', `/posts/${t.post}`, json(JSON.stringify({ body: 'z'.repeat(1100 * 1024) })));
  // README known limit: a Text-cast Tier B index cannot hold a value of several kilobytes (413).
  const incompressible = randomBytes(12 * 1024).toString('base64');
  add('media', 'POST', '/posts', { body: { project_id: t.project, title: 'big city', meta: { address: { city: incompressible } } } });
  add('media', 'PATCH', `/posts/${t.post}`, { body: { meta: { address: { city: incompressible } } } });

  // Tokens that must not authenticate.
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${b64({ alg: 'none' })}.${b64({ sub: 'root', roles: ['admin'] })}.`;
  for (const header of [`Bearer ${unsigned}`, `Bearer ${SQL_STRINGS[2]}`, `Bearer ${'a'.repeat(5000)}`, 'Bearer a.b.c', 'Bearer null', 'Basic YWRtaW46YWRtaW4=', `Bearer ${b64({ alg: 'HS256' })}..`]) {
    add('tokens', 'GET', '/posts', { token: null, headers: { Authorization: header } });
    add('tokens', 'DELETE', `/posts/${t.post}`, { token: null, headers: { Authorization: header } });
  }
  return cases;
}

export interface ReadCase {
  method: string;
  path: string;
  opts?: CallOptions;
  /** The value cannot match any seeded row: the reply must hold no data. */
  zero?: boolean;
  /** The page is past the end: no rows in `data`, whatever the total. */
  emptyPage?: boolean;
  /** A 400 is also right (a NUL byte cannot be stored, a like pattern may not end in an escape). */
  mayRefuse?: boolean;
}

/** Reads with SQL, quotes, wildcards, NUL and unicode in string values: they answer normally. */
export function hostileReads(t: Targets): ReadCase[] {
  const reads: ReadCase[] = [];
  const exact = ['title', 'title[like]', 'title[ilike]', 'title[in]', 'meta.address.city', 'body[search]'];
  for (const v of [...SQL_STRINGS, '%', '_', '\\', "O'Brien", '💩', 'x'.repeat(5000), '\u202Egnp.exe', 'null', 'true']) {
    const q = encodeURIComponent(v);
    const wildcard = /[%_*]/.test(v);
    const mayRefuse = v.includes('\\');
    for (const f of [...exact, 'title[ne]', 'legacyCode[nin]']) {
      reads.push({ method: 'GET', path: `/posts?${f}=${q}`, zero: exact.includes(f) && !wildcard, mayRefuse });
    }
    reads.push({ method: 'POST', path: '/posts/search', opts: { body: { where: { or: [{ title: { eq: v } }, { 'meta.address.city': { like: v } }] } } }, zero: !wildcard, mayRefuse });
  }
  reads.push({ method: 'GET', path: '/posts?title=%00', zero: true, mayRefuse: true });
  reads.push({ method: 'GET', path: '/posts?title[like]=a%00b', zero: true, mayRefuse: true });
  reads.push({ method: 'GET', path: '/posts?page=2147483647&per_page=100', emptyPage: true });
  reads.push({ method: 'POST', path: '/posts/search', opts: { body: { where: { meta: { contains: { address: { city: SQL_STRINGS[0] } } } } } }, zero: true });
  reads.push({ method: 'GET', path: `/posts?meta[contains]=${encodeURIComponent('{"__proto__":{"polluted":"yes"}}')}`, zero: true });
  reads.push({ method: 'GET', path: `/projects/${t.project}/posts?title=${encodeURIComponent(SQL_STRINGS[1]!)}`, zero: true });
  reads.push({ method: 'GET', path: `/users/${t.user}/profile?include=bio` });
  return reads;
}
