// Routing from the manifest alone: which segments are routes, which methods each answers, the Allow
// list for 405, nested collections along every parent chain, relations and sub-resources under them too.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { compileModel } from '../../compiler/index.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import { allowed, indexRoutes, matchRoute } from '../../server/plan/routes.ts';
import { routeSegments } from '../../server/request/path.ts';
import { publishingModel } from './setup.ts';

const manifest = buildManifest(compileModel(JSON.parse(readFileSync(publishingModel, 'utf8'))).model);
const index = indexRoutes(manifest);
const match = (path: string) => {
  const m = matchRoute(index, path.split('/').filter(Boolean));
  const chain = (e: { parent?: { id: string }; ancestors?: Array<{ id: string }> }) =>
    [...e.ancestors ?? [], ...(e.parent ? [e.parent] : [])].map((a) => `<${a.id}`).join('');
  return Object.fromEntries([...m].map(([method, e]) => [method, `${e.resource.entity}.${e.action}${chain(e)}`]));
};

test('segments below the base path, decoded; anything else is not ours', () => {
  assert.equal(routeSegments('/api/publishing/v1/posts/a%2Fb', '/api/publishing/v1'), ['posts', 'a/b']);
  assert.equal(routeSegments('/api/publishing/v1', '/api/publishing/v1'), []);
  assert.is(routeSegments('/api/publishing/v10/posts', '/api/publishing/v1'), undefined);
  assert.is(routeSegments('/api/publishing/v1/posts/', '/api/publishing/v1'), undefined);
  assert.is(routeSegments('/api/publishing/v1//posts', '/api/publishing/v1'), undefined);
  assert.is(routeSegments('/api/publishing/v1/posts/%E0%A4%A', '/api/publishing/v1'), undefined);
});

test('collections, items, search and restore', () => {
  assert.equal(match('posts'), { GET: 'Post.list', POST: 'Post.create' });
  assert.equal(match('posts/p1'), { GET: 'Post.read', PUT: 'Post.replace', PATCH: 'Post.patch', DELETE: 'Post.delete' });
  assert.equal(match('posts/search'), { POST: 'Post.search', GET: 'Post.read', PUT: 'Post.replace', PATCH: 'Post.patch', DELETE: 'Post.delete' });
  assert.equal(match('posts/p1/restore'), { POST: 'Post.restore' });
  assert.equal(match('tags/t1/restore'), {}, 'no restore without softDelete');
});

test('nested collections pass the parent chain, to any depth', () => {
  assert.equal(match('projects/x/posts'), { GET: 'Post.list<x', POST: 'Post.create<x' });
  assert.equal(match('projects/x/posts/p1'), { GET: 'Post.read<x', PUT: 'Post.replace<x', PATCH: 'Post.patch<x', DELETE: 'Post.delete<x' });
  assert.equal(match('projects/x/posts/p1/restore'), { POST: 'Post.restore<x' });
  assert.equal(match('posts/p1/comments'), { GET: 'Comment.list<p1', POST: 'Comment.create<p1' });
  assert.equal(match('projects/x/posts/p1/comments'), { GET: 'Comment.list<x<p1', POST: 'Comment.create<x<p1' });
  assert.equal(match('projects/x/posts/p1/comments/c1'), { GET: 'Comment.read<x<p1', PUT: 'Comment.replace<x<p1', PATCH: 'Comment.patch<x<p1', DELETE: 'Comment.delete<x<p1' });
  assert.equal(match('projects/x/posts/p1/tags'), { GET: 'Post.relationList<x' }, 'relations under a parent');
  assert.equal(match('projects/x/posts/p1/tags/t1'), { PUT: 'Post.link<x', DELETE: 'Post.unlink<x' });
  assert.equal(match('projects/x/posts/p1/comments/c1/x'), {});
  assert.equal(match('projects/x/comments'), {}, 'not a child of projects');
  assert.equal(match('tags/x/posts'), {}, 'not a parent');
});

test('record history: …/{id}/history and …/{id}/history/{version}, under nested paths too; none without a Version', () => {
  assert.equal(match('posts/p1/history'), { GET: 'Post.history' });
  assert.equal(match('posts/p1/history/3'), { GET: 'Post.historyVersion' });
  assert.equal(matchRoute(index, ['posts', 'p1', 'history', '3']).get('GET')?.target, '3');
  assert.equal(match('projects/x/posts/p1/history'), { GET: 'Post.history<x' });
  assert.equal(match('projects/x/posts/p1/history/3'), { GET: 'Post.historyVersion<x' });
  assert.equal(match('posts/p1/history/3/x'), {});
  assert.equal(match('tags/t1/history'), {}, 'Tag has no Version');
  assert.equal(match('projects/x/history'), {});
});

test('relations by name: manyToMany list/link/unlink, oneToOne read/replace', () => {
  assert.equal(match('posts/p1/tags'), { GET: 'Post.relationList' });
  assert.equal(match('posts/p1/tags/t1'), { PUT: 'Post.link', DELETE: 'Post.unlink' });
  assert.equal(match('users/u1/profile'), { GET: 'User.subRead', PUT: 'User.subReplace' });
  assert.equal(match('users/u1/profile/x'), {});
  assert.equal(match('projects/x/members/u1'), { PUT: 'Project.link', DELETE: 'Project.unlink' });
});

test('unknown paths match nothing; Allow lists methods with HEAD beside GET', () => {
  assert.equal(match('nope'), {});
  assert.equal(match('posts/p1/nope'), {});
  assert.equal(match('posts/p1/tags/t1/x'), {});
  assert.equal(allowed(matchRoute(index, ['posts'])), ['GET', 'HEAD', 'POST']);
  assert.equal(allowed(matchRoute(index, ['posts', 'p1', 'tags', 't1'])), ['PUT', 'DELETE']);
});

test.run();
