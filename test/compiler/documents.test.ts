// A migration's stored documents (compiler/migrations/documents.ts): read back from committed scripts, literals split
// over lines by the layout included, and a changed one written as a merge patch of the committed one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asPatch, committedDocuments } from '../../compiler/migrations/documents.ts';
import { wrapLong } from '../../compiler/sql/layout.ts';
import { literal } from '../../compiler/sql/ident.ts';

const insert = (doc: unknown) => wrapLong(`INSERT INTO lib.fields (tbl, fields) VALUES ('posts', ${literal(JSON.stringify(doc))}::jsonb)\n`
  + '  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;');

test('a document whose literal the layout split over lines is read back whole, and its patches replayed', () => {
  const long = { pk: 'id', about: 'x'.repeat(400), columns: { title: { kind: 'String' } } };
  const script = insert(long);
  assert.ok(script.split('\n').length > 2, 'the literal was split');
  assert.equal(committedDocuments([script]).get("fields 'posts'"), long);
  const next = { ...long, about: 'y'.repeat(300), columns: { title: { kind: 'String' }, note: { kind: 'String' } } };
  const patch = asPatch(insert(next), committedDocuments([script]))!;
  assert.match(patch, /^UPDATE lib\.fields SET fields = lib\.merge_patch\(fields, /);
  assert.not.match(patch, '"title"', 'only what changed');
  assert.equal(committedDocuments([script, wrapLong(patch)]).get("fields 'posts'"), next);
});

test('no patch where the committed scripts hold no such document, or a null would read as a removal', () => {
  assert.is(asPatch(insert({ a: 1 }), new Map()), undefined);
  assert.is(asPatch(insert({ a: 1, b: null }), committedDocuments([insert({ a: 1 })])), undefined);
});

test.run();
