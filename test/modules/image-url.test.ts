// ImageURL: a FileURL that accepts images (image/*) unless the model names other types.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptedFileTypes } from '../../compiler/model/mime.ts';
import { moduleDatabase, type ModuleDb } from './support.ts';
import { fileModel } from './files.ts';

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(fileModel); });
test.after(async () => m?.close());

test('image/* by default; allowedMimeTypes narrow it', () => {
  const props = m.manifest.resources.Doc!.properties;
  assert.equal(props.photo!.file, { module: 'ImageURL', fileTypes: ['image/*'] });
  assert.equal(props.logo!.file, { module: 'ImageURL', allowedMimeTypes: ['image/png'], fileTypes: ['image/png'] });
  assert.equal(acceptedFileTypes({ type: 'String', modules: { ImageURL: {} }, web: { fileTypes: ['image/gif'] } }), ['image/gif']);
});

test('the column holds file blocks only, as a FileURL does', async () => {
  const [check] = await m.db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'docs_photo_file'`;
  assert.match(check!.def, 'lib.is_file_block(photo)');
});

test.run();
