// The generated OpenAPI 3.1 documents: both examples pass @apidevtools/swagger-parser's validation;
// every route the gateway has is described, with problems, concurrency headers, web bindings, files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import SwaggerParser from '@apidevtools/swagger-parser';
import { indexRoutes, matchRoute, type Method } from '../../server/plan/routes.ts';
import { EXAMPLES, documentOf, manifestOf, resolve, schemaOf, type Json } from './support.ts';
import { bodySchemaOf, documentSchema } from '../../compiler/manifest/schemas.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import { buildOpenApi } from '../../compiler/openapi/document.ts';
import { validateModel } from '../../compiler/model/validate.ts';

const pub = documentOf('examples/publishing.model.json');
const bill = documentOf('examples/billing.model.json');
const operations = (doc: Json) => Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })));

for (const file of EXAMPLES) {
  test(`${file}: a valid OpenAPI 3.1 document (swagger-parser)`, async () => {
    const doc = documentOf(file);
    assert.is(doc.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(doc) as never); // throws, listing every error
  });
}

test('every described operation is a route of the gateway, and every action of every entity is described', () => {
  for (const [file, doc] of [[EXAMPLES[0]!, pub], [EXAMPLES[1]!, bill]] as const) {
    const manifest = manifestOf(file);
    const index = indexRoutes(manifest);
    const seen = new Set<string>();
    for (const { path, method } of operations(doc)) {
      if (path === '/.well-known/upload' || path === '/batch' || path.startsWith('/auth/')) continue; // not entity routes (test/e2e/batch.test.ts, identity.test.ts)
      const segments = path.split('/').slice(1).map((s) => (s.startsWith('{') ? 'k1' : s));
      const endpoint = matchRoute(index, segments).get(method.toUpperCase() as Method);
      assert.ok(endpoint, `${method} ${path} is routed`);
      seen.add(`${endpoint!.resource.entity}.${endpoint!.action}${endpoint!.relation ? `.${endpoint!.relation.name}` : ''}`);
    }
    assert.ok(Object.values(manifest.resources).some((r) => r.functions.history), 'some entity keeps history (a Version property)');
    for (const r of Object.values(manifest.resources)) {
      const actions = ['list', 'search', 'read', 'create', 'replace', 'patch', 'delete', ...(r.softDelete ? ['restore'] : []),
        ...(r.functions.history ? ['history', 'historyVersion'] : [])];
      for (const a of actions) assert.ok(seen.has(`${r.entity}.${a}`), `${r.entity} ${a} is described`);
      for (const [name, rel] of Object.entries(r.relations)) {
        const relActions = rel.kind === 'manyToMany' ? ['relationList', 'link', 'unlink'] : ['subRead', 'subReplace'];
        for (const a of relActions) assert.ok(seen.has(`${r.entity}.${a}.${name}`), `${r.entity}.${name} ${a} is described`);
      }
    }
  }
});

test('descriptions are Markdown that renders as written: angle brackets, * and % stand in code spans', () => {
  // Outside a code span, `<operator>` is an HTML tag the page drops and `* ` starts a list (the /docs page showed
  // `slug[]=` and a bullet). Every description of both examples, anywhere in the document.
  const found: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((x, i) => walk(x, `${at}/${i}`));
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'description' && typeof v === 'string') {
        const prose = v.replace(/`[^`]*`/g, '');
        if (/<[A-Za-z/!]|(^|\s)[*%](\s|$)|\*\*/.test(prose)) found.push(`${at}: ${v}`);
      } else walk(v, `${at}/${k}`);
    }
  };
  walk(pub, 'publishing');
  walk(bill, 'billing');
  assert.equal(found, []);
});

test('every error response is an RFC 9457 problem document; bearer security', () => {
  for (const { path, method, op } of operations(pub)) {
    for (const [status, r] of Object.entries(op.responses as Json)) {
      if (status !== 'default' && Number(status) < 400) continue;
      const content = resolve(pub, r as Json).content;
      assert.equal(Object.keys(content), ['application/problem+json'], `${method} ${path} ${status}`);
      assert.equal(content['application/problem+json'].schema, { $ref: '#/components/schemas/Problem' });
    }
  }
  assert.equal(schemaOf(pub, 'Problem').required, ['type', 'title', 'status', 'code', 'detail']);
  assert.equal(pub.components.securitySchemes.bearerAuth, { ...pub.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  assert.equal(pub.security, [{ bearerAuth: [] }, {}], 'a token is optional: without one the caller is anonymous');
});

test('concurrency: ETag and Last-Modified on reads, If-Match / If-Unmodified-Since on writes, If-None-Match and 304', () => {
  const item = pub.paths['/posts/{id}'];
  const params = (op: Json) => (op.parameters as Json[]).map((p) => resolve(pub, p).name);
  for (const m of ['put', 'patch', 'delete']) {
    assert.ok(params(item[m]).includes('If-Match') && params(item[m]).includes('If-Unmodified-Since'), m);
    assert.ok(item[m].responses['412'], `${m} declares 412`);
  }
  assert.ok(params(item.get).includes('If-None-Match'));
  assert.equal(Object.keys(item.get.responses['200'].headers), ['ETag', 'Last-Modified']);
  assert.ok(item.get.responses['304']);
  assert.equal(Object.keys(pub.paths['/posts'].post.responses['201'].headers), ['Location', 'ETag']);
  assert.ok(params(pub.paths['/users/{id}/profile'].put).includes('If-Match'), 'sub-resource PUT takes the owner\'s ETag');
  const link = pub.paths['/posts/{id}/tags/{target_id}'];
  for (const m of ['put', 'delete']) {
    assert.ok(params(link[m]).includes('If-Match') && link[m].responses['412'], `link ${m}: If-Match is judged, 412`);
    assert.not.ok(params(link[m]).includes('If-Unmodified-Since'), `link ${m}: a link has no modification time`);
  }
});

test('writeOnly and Password properties are never in a read schema', () => {
  const readSchemas = Object.keys(pub.components.schemas).filter((n) => !/(Create|CreateNested|Update|Patch|Replace|LinkBody|Request)$/.test(n));
  for (const n of readSchemas) assert.not.ok(JSON.stringify(schemaOf(pub, n)).includes('"password"'), n);
  assert.is(schemaOf(pub, 'UserCreate').properties.password.writeOnly, true);
});

test('timestamps and the Owner are readOnly in the documents even when the model does not flag them: the server sets them', () => {
  const model = validateModel({
    api: { slug: 'stamps', version: 'v1', title: 'Stamps', docsUrl: 'https://stamps.example.com/docs', strategy: 'RBAC',
      scenarios: [{ label: 'Anyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }] },
    entities: { Note: { collection: 'notes', properties: {
      id: { type: 'String', primary: true }, text: { type: 'String' }, rev: { type: 'Number', modules: { Version: {} } },
      made: { type: 'DateTime', modules: { CreatedTimestamp: {} } }, changed: { type: 'DateTime', modules: { UpdatedTimestamp: {} } },
      owner: { type: 'String', modules: { Owner: {} } },
    } } },
  });
  const doc: Json = buildOpenApi(buildManifest(model));
  for (const body of ['NoteCreate', 'NoteUpdate', 'NotePatch']) {
    const names = Object.keys(schemaOf(doc, body).properties);
    for (const managed of ['made', 'changed', 'owner']) assert.not.ok(names.includes(managed), `${managed} in ${body}`);
    assert.ok(names.includes('text'), body);
  }
  assert.ok(Object.keys(schemaOf(doc, 'NotePatch').properties).includes('rev'), 'the Version stays the lock of update bodies');
  for (const managed of ['made', 'changed', 'owner']) assert.is(schemaOf(doc, 'Note').properties[managed].readOnly, true, managed);
});

test('hidden properties are left out of everything: schemas, filters, sort and projections', () => {
  assert.not.ok(JSON.stringify(pub).includes('internal_note'));
});

test('deprecated, web name (the property\'s name on the wire, in every schema), numeric format', () => {
  for (const n of ['Post', 'PostCreate', 'PostUpdate', 'PostPatch']) {
    const p = schemaOf(pub, n).properties.legacyCode;
    assert.is(p.deprecated, true, n);
    assert.not.ok(schemaOf(pub, n).properties.legacy_code, `${n}: the column's name is not on the wire`);
  }
  assert.ok(JSON.stringify(pub.paths).includes('"legacyCode"') || JSON.stringify(pub.components.parameters).includes('legacyCode'), 'filters by the web name');
  const format = (doc: Json, schema: string, prop: string) => {
    const s = schemaOf(doc, schema).properties[prop];
    return (s.anyOf?.[0] ?? s).format;
  };
  assert.is(format(pub, 'Post', 'word_count'), 'int32');
  assert.is(format(pub, 'PostCreate', 'word_count'), 'int32');
  assert.is(format(pub, 'Comment', 'id'), 'int64');
  assert.is(format(bill, 'Invoice', 'amount'), 'double');
  assert.is(format(bill, 'InvoiceCreate', 'amount'), 'double');
  assert.is(format(bill, 'Invoice', 'revision'), 'int32', 'a Version without format is an integer column');
});

test('files: a file_reference token in write bodies, {id, name, mime, url} in reads, fileTypes', () => {
  const cover = schemaOf(pub, 'Post').properties.cover;
  assert.equal(cover.anyOf[0].required, ['id', 'name', 'mime', 'url']);
  // A declared type keeps its parameters (text/plain; charset=utf-8) and a list may hold image/*: mime is no enum.
  assert.equal(cover.anyOf[0].properties.mime.type, 'string');
  assert.is(cover.anyOf[0].properties.mime.enum, undefined);
  assert.equal(cover['x-fileTypes'], ['image/png', 'image/jpeg', 'image/webp']);
  const token = schemaOf(pub, 'PostCreate').properties.cover;
  assert.equal(token.anyOf[0], { type: 'string', minLength: 1 });
  assert.match(token.description, 'file_reference');
  assert.equal(schemaOf(pub, 'PostCreate').properties.attachment['x-fileTypes'], ['application/pdf'], 'allowedMimeTypes without web.fileTypes');
  const upload = pub.paths['/.well-known/upload'].post;
  assert.equal(schemaOf(pub, 'UploadIntentRequest').required, ['filename', 'contentType']);
  assert.equal(upload.responses['201'].content['application/json'].schema, { $ref: '#/components/schemas/UploadIntentSingle' });
  assert.equal(schemaOf(pub, 'UploadIntent').required, ['file_reference', 'upload_url']);
});

test('JSON properties carry their JSON Schema, or null when not required; a PATCH takes a merge patch of it', () => {
  const model = bodySchemaOf(manifestOf('examples/publishing.model.json').resources.Post!.schemas, 'create') as Json;
  assert.equal(schemaOf(pub, 'PostCreate').properties.meta, model.properties.meta);
  assert.equal(model.properties.meta.anyOf[1], { type: 'null' }, 'meta is not required: null is no document');
  assert.equal(schemaOf(pub, 'Post').properties.meta.anyOf[0], documentSchema(model.properties.meta));
  const patch = schemaOf(pub, 'PostPatch').properties.meta;
  assert.match(patch.description, 'RFC 7396');
  assert.equal(patch.anyOf[1], { type: 'null' }, 'null clears the property');
  assert.equal(patch.anyOf[0].properties.address.anyOf[1], { type: 'null' }, 'null deletes a key');
  assert.equal(schemaOf(bill, 'InvoiceCreate').properties.lines.anyOf[0].items.required, ['sku', 'qty']);
});

test('the query language: deepObject filters with the operators of each type, sort, paging, projections', () => {
  const list = (pub.paths['/posts'].get.parameters as Json[]).map((p) => resolve(pub, p));
  const param = (name: string) => list.find((p) => p.name === name)!;
  assert.is(param('title').style, 'deepObject');
  assert.equal(Object.keys(param('title').schema.properties), ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'null', 'search']);
  assert.equal(Object.keys(param('featured').schema.properties), ['eq', 'ne', 'in', 'nin', 'null']);
  assert.equal(Object.keys(param('meta').schema.properties), ['contains', 'null']);
  assert.equal(param('meta.priority').schema.properties.gt, { type: 'integer' }, 'a Tier B cast path');
  assert.not.ok(list.some((p) => p.name === 'password'));
  const sort = new RegExp(param('sort').schema.pattern);
  assert.ok(sort.test('-meta.priority,title') && !sort.test('password') && !sort.test('cover'));
  assert.equal(param('per_page').schema.maximum, 100);
  assert.ok(new RegExp(param('include').schema.pattern).test('id,title,meta.address.city'));
  const where = schemaOf(pub, 'PostWhere');
  assert.ok(where.properties.and && where.properties.or && where.properties.not);
  assert.equal(where.properties.rating.anyOf[0].properties.in, { type: 'array', items: { type: 'number' } });
});

test('edge properties of a membership carry their allowed values and display names (spec 2.4), in the link body and the edge', () => {
  const doc = documentOf('examples/publishing.model.json');
  for (const name of ['ProjectMembersEdge', 'ProjectMembersLink', 'ProjectMembersLinkBody']) {
    const s = name.endsWith('Body') ? resolve(doc, doc.components.requestBodies[name]).content['application/json'].schema : schemaOf(doc, name);
    assert.is(s.properties.role.title, 'Member role', name);
    assert.is(s.properties.status.title, 'Membership status', name);
    assert.equal(s.properties.role.anyOf[0].enum, ['editor', 'viewer'], name);
  }
});

test('a linked record may come without edge: include/exclude can leave it out, so the schema does not require it', () => {
  const doc = documentOf('examples/publishing.model.json');
  const linked = schemaOf(doc, 'PostTagsLinked');
  assert.ok(JSON.stringify(linked).includes('"edge"'), 'edge is described');
  assert.not.ok(JSON.stringify(linked).includes('"required":["edge"]'), 'and not required');
});

test.run();
