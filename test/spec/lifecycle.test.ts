// Spec table 2.2 in the generated schemas, row by row: readOnly marked and absent from Create, Update
// and Patch; immutable only in Create; keys per their flags; PUT and PATCH bodies alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildManifest } from '../../compiler/manifest/build.ts';
import { compileModel } from '../../compiler/index.ts';
import { buildOpenApi } from '../../compiler/openapi/document.ts';
import { testApi } from '../harness/fixtures.ts';
import { documentOf, schemaOf, type Json } from './support.ts';

/** One entity per kind of key; the other rows of the table as properties of the first. */
const model = {
  api: testApi('lifecycle'),
  entities: {
    Server: {
      collection: 'servers',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        name: { type: 'String', required: true },
        region: { type: 'String', immutable: true },
        stamp: { type: 'DateTime', readOnly: true },
      },
    },
    Client: {
      collection: 'clients',
      properties: { code: { type: 'String', primary: true, immutable: true }, label: { type: 'String' } },
    },
  },
};

type Row = [row: string, entity: string, property: string, inCreate: boolean, inUpdate: boolean, readOnly: boolean];
const ROWS: Row[] = [
  ['readOnly false, immutable false (mutable)', 'Server', 'name', true, true, false],
  ['immutable true, readOnly false', 'Server', 'region', true, false, false],
  ['readOnly true, immutable false', 'Server', 'stamp', false, false, true],
  ['primary + readOnly (server-generated id)', 'Server', 'id', false, false, true],
  ['primary + immutable (client-assignable id)', 'Client', 'code', true, false, false],
];

/** The same rows as the publishing example spells them. */
const EXAMPLE_ROWS: Row[] = [
  ['mutable', 'Post', 'title', true, true, false],
  ['immutable', 'Post', 'project_id', true, false, false],
  ['readOnly', 'Post', 'author_id', false, false, true],
  ['readOnly (CreatedTimestamp)', 'Post', 'created_at', false, false, true],
  ['primary + readOnly', 'User', 'id', false, false, true],
  ['primary + readOnly Number', 'Comment', 'id', false, false, true],
  ['primary + immutable', 'Post', 'id', true, false, false],
  ['primary + immutable', 'Tag', 'slug', true, false, false],
];

const has = (s: Json, p: string) => Object.hasOwn(s.properties ?? {}, p);

/** `open`: entities with a hidden property, whose bodies may hold a key the document does not show. */
function checkRows(doc: Json, rows: Row[], open: string[] = []): void {
  for (const [row, entity, prop, inCreate, inUpdate, readOnly] of rows) {
    const at = `${row}: ${entity}.${prop}`;
    const read = schemaOf(doc, entity).properties[prop];
    assert.ok(read, `${at} is in the read schema`);
    assert.is(read.readOnly === true, readOnly, `${at} readOnly mark`);
    assert.is(has(schemaOf(doc, `${entity}Create`), prop), inCreate, `${at} in Create`);
    for (const kind of ['Update', 'Patch']) {
      assert.is(has(schemaOf(doc, `${entity}${kind}`), prop), inUpdate, `${at} in ${kind}`);
      assert.not.ok((schemaOf(doc, `${entity}${kind}`).required ?? []).includes(prop) && !inUpdate, `${at} not required in ${kind}`);
    }
    for (const kind of ['Create', 'Update', 'Patch']) {
      const closed = open.includes(entity) ? undefined : false;
      assert.is(schemaOf(doc, `${entity}${kind}`).additionalProperties, closed, `${entity}${kind} refuses what it does not list`);
    }
  }
}

test('every row of table 2.2 in a purpose-made model', () => {
  checkRows(buildOpenApi(buildManifest(compileModel(model).model)), ROWS);
});

test('every row of table 2.2 in the publishing example', () => {
  checkRows(documentOf('examples/publishing.model.json'), EXAMPLE_ROWS, ['Post']);
});

test('PUT and PATCH bodies hold the same properties; only Create requires what must be supplied', () => {
  const doc = documentOf('examples/publishing.model.json');
  for (const e of ['User', 'Project', 'Post', 'Comment', 'Tag']) {
    assert.equal(Object.keys(schemaOf(doc, `${e}Update`).properties), Object.keys(schemaOf(doc, `${e}Patch`).properties), e);
    assert.is(schemaOf(doc, `${e}Patch`).required, undefined, `${e}Patch requires nothing`);
  }
  assert.equal(schemaOf(doc, 'PostCreate').required, ['project_id', 'title']);
  assert.equal(schemaOf(doc, 'PostCreateNested').required, ['title'], 'a nested create takes the parent key from the path');
  assert.equal(schemaOf(doc, 'PostUpdate').required, ['title']);
});

test('Version: not in Create (a record starts at 1), an expected-version lock in Update and Patch', () => {
  const doc = documentOf('examples/publishing.model.json');
  assert.not.ok(has(schemaOf(doc, 'PostCreate'), 'version'));
  for (const kind of ['PostUpdate', 'PostPatch']) {
    const { type, minimum, format, anyOf } = schemaOf(doc, kind).properties.version;
    assert.equal({ type, minimum, format, anyOf }, { type: 'integer', minimum: 1, format: 'int32', anyOf: undefined }, `${kind}: a positive integer, never null`);
  }
  assert.equal(schemaOf(doc, 'Post').properties.version, { type: 'integer', minimum: 1, format: 'int32' });
});

test.run();
