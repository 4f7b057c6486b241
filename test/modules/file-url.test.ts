// FileURL: a stored file's block in a jsonb column (checked by <table>_<prop>_file), its limits in the manifest.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';
import { fileModel } from './files.ts';

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(fileModel); });
test.after(async () => m?.close());

test('a jsonb column that holds only file blocks', async () => {
  const [col] = await m.db.sql`select data_type from information_schema.columns where table_schema = 'app' and table_name = 'docs' and column_name = 'attachment'`;
  assert.is(col!.data_type, 'jsonb');
  const [check] = await m.db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'docs_attachment_file'`;
  assert.match(check!.def, 'lib.is_file_block(attachment)');
});

test('the manifest: the module, its limits and the types it accepts (any when none are named)', () => {
  const props = m.manifest.resources.Doc!.properties;
  assert.equal(props.attachment!.file, { module: 'FileURL', maxSizeInBytes: 1000, allowedMimeTypes: ['application/pdf'], fileTypes: ['application/pdf'] });
  assert.equal(props.scan!.file, { module: 'FileURL' });
});

test('model checks: String or Binary, one file module, no unique or enum, fileTypes within allowedMimeTypes', () => {
  const doc = (props: Record<string, unknown>) => moduleModel('f', { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(doc({ f: { type: 'Number', modules: { FileURL: {} } } })).some((e) => e.rule === 'File Module'));
  assert.ok(errorsOf(doc({ f: { type: 'String', unique: true, modules: { FileURL: {} } } })).some((e) => e.rule === 'File Module'));
  assert.ok(errorsOf(doc({ f: { type: 'String', modules: { FileURL: {}, ImageURL: {} } } })).some((e) => e.message === 'FileURL and ImageURL cannot both be set'));
  assert.ok(errorsOf(doc({ f: { type: 'Binary' } })).some((e) => e.rule === 'Binary Needs File Module'));
  assert.ok(errorsOf(doc({ f: { type: 'String', web: { fileTypes: ['text/plain'] }, modules: { FileURL: { allowedMimeTypes: ['application/pdf'] } } } })).some((e) => e.rule === 'Web Binding'));
  assert.ok(errorsOf(doc({ f: { type: 'String', modules: { FileURL: { maxSizeInBytes: 0 } } } })).some((e) => e.rule === 'Model schema'));
});

test.run();
