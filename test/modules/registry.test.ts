// The module registry is the one list: the model schema's modules, the known names in errors, and one test file
// per module here (a new module is its file in compiler/modules, one registry line and its test).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { MODULES, MODULE_NAMES, RELATION_MODULES, RELATION_MODULE_NAMES } from '../../compiler/modules/index.ts';
import { modelSchema } from '../../compiler/model/schema-check.ts';
import { manyToManyBranch as branch } from '../../compiler/model/schema-compose.ts';
import { errorsOf } from './checks.ts';
import { moduleModel } from './support.ts';

const kebab = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();

test("the model schema's modules are the registry's, each its options' schema", () => {
  const modules = modelSchema().definitions.property.properties.modules;
  assert.equal(Object.keys(modules.properties), MODULE_NAMES);
  for (const name of MODULE_NAMES) assert.equal(modules.properties[name], MODULES[name].options, name);
  assert.is(modules.additionalProperties, false);
  // The file itself names none: the registry is the one list.
  const file = JSON.parse(readFileSync(new URL('../../compiler/model.schema.json', import.meta.url), 'utf8'));
  assert.equal(file.definitions.property.properties.modules.properties, {});
});

test("a manyToMany relation's modules are the relation registry's (Membership), the file naming none", () => {
  const schema = modelSchema();
  const modules = branch(schema).properties.modules;
  assert.equal(Object.keys(modules.properties), RELATION_MODULE_NAMES);
  for (const name of RELATION_MODULE_NAMES) assert.equal(modules.properties[name], RELATION_MODULES[name].options, name);
  const file = JSON.parse(readFileSync(new URL('../../compiler/model.schema.json', import.meta.url), 'utf8'));
  assert.equal(branch(file).properties.modules.properties, {});
});

test('every module has its own file and its own test', () => {
  for (const name of [...MODULE_NAMES, ...RELATION_MODULE_NAMES]) {
    const file = kebab(name);
    assert.ok(existsSync(new URL(`../../compiler/modules/${file}.ts`, import.meta.url)), `compiler/modules/${file}.ts`);
    assert.ok(existsSync(new URL(`./${file}.test.ts`, import.meta.url)), `test/modules/${file}.test.ts`);
  }
});

test('an unknown module is refused with the known ones listed from the registry', () => {
  const model = moduleModel('r', { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, x: { type: 'String', modules: { Colour: {} } } } } });
  const e = errorsOf(model).find((x) => x.rule === 'Unknown module');
  assert.ok(e);
  assert.ok(e!.message.endsWith(`(known: ${MODULE_NAMES.join(', ')})`));
});

test('no module forgets a summary or an options schema', () => {
  for (const name of MODULE_NAMES) {
    assert.type(MODULES[name].summary, 'string', name);
    assert.is((MODULES[name].options as { type?: string }).type, 'object', name);
  }
});

test.run();
