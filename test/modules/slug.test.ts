// Slug: a lowercase, unique, URL-safe String, derived from the property its options name when a create leaves it
// out; a malformed one is a 422 (its pattern), a taken one a 409. Against PostgreSQL through api.dispatch.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';
import { buildSchema } from '../../compiler/ir/build.ts';
import { triggerDdl } from '../../compiler/sql/triggers.ts';
import { DEFAULT_ROLES } from '../../compiler/sql/roles.ts';
import { validateModel } from '../../compiler/model/validate.ts';
import { bodySchemaOf } from '../../compiler/manifest/schemas.ts';

const model = moduleModel('slugs', {
  Post: {
    collection: 'posts',
    properties: {
      id: { type: 'String', primary: true, readOnly: true },
      title: { type: 'String', required: true },
      slug: { type: 'String', required: true, modules: { Slug: { from: 'title' } } },
    },
  },
});

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(model); });
test.after(async () => m?.close());

const create = async (body: Record<string, unknown>) => (await m.call('posts_create', { body })).data;
const problemOf = async (body: Record<string, unknown>) => m.problem(await m.refusal('posts_create', { body }), ['posts']);
const errors = (p: Record<string, unknown>) => (p.errors as Array<{ property: string; rule: string }> | undefined)?.map(({ property, rule }) => ({ property, rule }));

test('derived on create from the title: lowercase, runs of other characters one dash, no dash at the ends, non-ASCII dropped', async () => {
  assert.is((await create({ title: 'Hello, World!' })).slug, 'hello-world');
  assert.is((await create({ title: '  --Ten  Tips_for   PostgreSQL 17 -- ' })).slug, 'ten-tips-for-postgresql-17');
  assert.is((await create({ title: 'Crème brûlée à Paris' })).slug, 'crme-brle-paris');
  assert.is((await create({ title: 'Tab\tand\nnewline' })).slug, 'tab-and-newline');
  assert.is((await create({ title: 'x', slug: null })).slug, 'x', 'null is absent: derived too');
});

test('kept when given', async () => {
  const post = await create({ title: 'Anything At All', slug: 'my-own-slug-2' });
  assert.is(post.slug, 'my-own-slug-2');
  const [row] = await m.db.sql`select slug from app.posts where id = ${post.id}`;
  assert.is(row!.slug, 'my-own-slug-2');
});

test('refused when malformed: 422, the pattern rule named, as any pattern a value breaks', async () => {
  for (const bad of ['Upper-Case', 'two--dashes', '-leading', 'trailing-', 'under_score', 'spa ce', 'ümlaut', '']) {
    const p = await problemOf({ title: 'Fine', slug: bad });
    assert.is(p.status, 422, bad);
    assert.is(p.code, 'E_VALIDATION_ERROR', bad);
    assert.equal(errors(p), [{ property: 'slug', rule: 'pattern' }], bad);
  }
  // A title that leaves nothing to derive gives no slug, and a required one is then missing.
  const none = await problemOf({ title: '¡¿!' });
  assert.is(none.status, 422);
  assert.equal(errors(none), [{ property: 'slug', rule: 'required' }]);
});

test('unique: a taken slug, given or derived, is a 409', async () => {
  const given = await problemOf({ title: 'Other', slug: 'hello-world' });
  assert.is(given.status, 409);
  assert.is(given.code, 'E_UNIQUE_VIOLATION');
  assert.match(String(given.detail), '"slug" must be unique');
  const derived = await problemOf({ title: 'HELLO world' });
  assert.is(derived.status, 409);
  // An update may move a slug, within the same rules.
  const post = await create({ title: 'Movable' });
  const moved = await m.call('posts_patch', { id: post.id, body: { slug: 'moved' } });
  assert.is(moved.data.slug, 'moved');
  const taken = m.problem(await m.refusal('posts_patch', { id: post.id, body: { slug: 'hello-world' } }), ['posts']);
  assert.is(taken.status, 409);
});

test('the wire: the pattern in the body schema, not required on create; the SQL a reviewer reads', () => {
  const r = m.manifest.resources.Post!;
  const create = bodySchemaOf(r.schemas, 'create') as { properties: Record<string, { anyOf?: Array<{ pattern?: string }>; pattern?: string }>; required?: string[] };
  assert.is(create.properties.slug!.pattern, '^[a-z0-9]+(?:-[a-z0-9]+)*$');
  assert.not.ok(create.required?.includes('slug'), 'derived when absent');
  assert.ok(create.required?.includes('title'));
  const table = buildSchema(validateModel(model)).tables.find((t) => t.name === 'posts')!;
  assert.equal(table.constraints.filter((c) => c.property === 'slug').map((c) => [c.name, c.rule, c.kind]),
    [['posts_slug_slug', 'pattern', 'check'], ['posts_slug_key', 'unique', 'unique']]);
  const ddl = triggerDdl(table, DEFAULT_ROLES);
  assert.match(ddl, [
    `    IF NEW."slug" IS NULL THEN`,
    `      NEW."slug" := left(regexp_replace(NEW."title", '[^\\x01-\\x7f]', '', 'g'), 255);  -- Slug: from title, non-ASCII dropped`,
    `      NEW."slug" := regexp_replace(lower(NEW."slug" COLLATE "C"), '[^a-z0-9]+', '-', 'g');`,
    `      NEW."slug" := nullif(trim(both '-' from NEW."slug"), '');`,
    '    END IF;',
  ].join('\n'));
  assert.ok(ddl.split('\n').every((line) => line.length <= 160), 'no line over 160 characters');
});

test('model checks: "from" names another single String property; options are required', () => {
  const post = (slug: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    moduleModel('s', { Post: { collection: 'posts', properties: { id: { type: 'String', primary: true }, title: { type: 'String' }, n: { type: 'Number' }, ...extra, slug } } });
  assert.equal(errorsOf(post({ type: 'String', modules: { Slug: { from: 'title' } } })), []);
  assert.ok(errorsOf(post({ type: 'String', modules: { Slug: { from: 'nope' } } })).some((e) => e.rule === 'Slug' && e.pointer.endsWith('/modules/Slug/from')));
  assert.ok(errorsOf(post({ type: 'String', modules: { Slug: { from: 'n' } } })).some((e) => e.rule === 'Slug'));
  assert.ok(errorsOf(post({ type: 'String', modules: { Slug: { from: 'slug' } } })).some((e) => e.rule === 'Slug'));
  assert.ok(errorsOf(post({ type: 'Number', modules: { Slug: { from: 'title' } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  assert.ok(errorsOf(post({ type: 'String', modules: { Slug: {} } })).some((e) => e.rule === 'Model schema'));
});

test.run();
