// The generated RAML 1.0 documents parse and validate with webapi-parser (AMF, the RAML reference
// parser family) without a single finding, and say what the OpenAPI document says.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import webapi from 'webapi-parser';
import { parse } from 'yaml';
import { buildRaml } from '../../compiler/raml/build.ts';
import { EXAMPLES, documentOf, type Json } from './support.ts';

interface Report { conforms: boolean; results: Array<{ level: string; message: string; position: unknown }> }
const { WebApiParser } = webapi as unknown as {
  WebApiParser: { init(): Promise<void>; raml10: { parse(text: string): Promise<unknown>; validate(model: unknown): Promise<Report> } };
};

async function validate(text: string): Promise<string[]> {
  await WebApiParser.init();
  const report = await WebApiParser.raml10.validate(await WebApiParser.raml10.parse(text));
  return report.results.map((r) => `${r.level}: ${r.message} at ${String(r.position)}`);
}

for (const file of EXAMPLES) {
  test(`${file}: the RAML 1.0 document validates with no finding`, async () => {
    const raml = buildRaml(documentOf(file));
    assert.ok(raml.startsWith('#%RAML 1.0\n'));
    assert.equal(await validate(raml), []);
  });
}

test('the parser does report a broken document (the check is not vacuous)', async () => {
  const raml = buildRaml(documentOf('examples/billing.model.json')).replace('type: InvoiceSingle', 'type: NoSuchType');
  assert.ok((await validate(raml)).length > 0);
});

test('same content as the OpenAPI document: resources, methods, filters, types, annotations, security', () => {
  const doc = documentOf('examples/publishing.model.json');
  const raml: Json = parse(buildRaml(doc).replace('#%RAML 1.0\n', ''));
  assert.is(raml.baseUri, '/api/publishing/v1');
  assert.equal(raml.securedBy, ['bearer', null]);
  const post = raml['/posts']['/{id}'];
  assert.equal(Object.keys(post).filter((k) => !k.startsWith('/') && k !== 'uriParameters').sort(), ['delete', 'get', 'patch', 'put']);
  assert.ok(post['/restore'].post && raml['/projects']['/{project_id}']['/posts']['/{id}']['/restore'].post);
  assert.ok(raml['/posts']['/{id}']['/tags']['/{target_id}'].put && raml['/users']['/{id}']['/profile'].put);
  assert.ok(raml['/.well-known']['/upload'].post);
  assert.ok(post.put.is.includes('IfMatch') && post.put.is.includes('PreconditionFailed_412'));
  assert.equal(raml.traits.PreconditionFailed_412.responses['412'].body['application/problem+json'].type, 'Problem');
  assert.equal(Object.keys(raml.traits.Post_title.queryParameters), ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'null', 'search'].map((o) => `title[${o}]`));
  const types = raml.types;
  for (const name of Object.keys(doc.components.schemas)) assert.ok(types[name], `type ${name}`);
  assert.is(types.Post.properties.author_id['(readOnly)'], true);
  assert.is(types.Post.properties.legacyCode['(deprecated)'], true, 'web.name is the property\'s name');
  assert.not.ok(types.Post.properties.legacy_code, 'the column\'s name is not on the wire');
  assert.is(types.Post.properties.id.required, false, 'projections may leave any property out');
  assert.equal(types.PostCreate.properties.cover['(fileTypes)'], ['image/png', 'image/jpeg', 'image/webp']);
  assert.is(types.Comment.properties.id.format, 'int64');
  assert.not.ok(JSON.stringify(types.User).includes('password'));
  assert.not.ok(JSON.stringify(raml).includes('internal_note'));
  // Embeds (include=project,tags; profile on users): a record or nil, a list of linked records, the sub-resource.
  assert.is(types.Post.properties.project.type, 'Project | nil');
  assert.equal([types.Post.properties.tags.type, types.Post.properties.tags.items], ['array', 'PostTagsLinked']);
  assert.is(types.User.properties.profile.type, 'UserProfile');
});

test('an edge property\'s display name (spec 2.4) is its displayName', () => {
  const raml: Json = parse(buildRaml(documentOf('examples/publishing.model.json')).replace('#%RAML 1.0\n', ''));
  assert.is(raml.types.ProjectMembersEdge.properties.role.displayName, 'Member role');
  assert.is(raml.types.ProjectMembersEdge.properties.status.displayName, 'Membership status');
});

test.run();
