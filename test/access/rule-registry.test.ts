// The rule registry is the one list of rule types: the model schema's rule oneOf, the identity rules, the known
// names in errors, and one file per type in compiler/access/rules.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { IDENTITY_RULES, RULES, RULE_TYPES } from '../../compiler/access/rules/index.ts';
import { describeRule } from '../../compiler/access/rules.ts';
import { modelSchema } from '../../compiler/model/schema-check.ts';
import { compileModel, ModelValidationError } from '../../compiler/index.ts';
import { testApi } from '../harness/fixtures.ts';

const kebab = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();

test("the model schema's rule oneOf is the registry's, one branch per type told apart by type", () => {
  const rule = modelSchema().definitions.rule;
  assert.equal(rule.discriminator, { propertyName: 'type' });
  assert.equal(rule.oneOf.map((b: { properties: { type: { const: string } } }) => b.properties.type.const), RULE_TYPES);
  const file = JSON.parse(readFileSync(new URL('../../compiler/model.schema.json', import.meta.url), 'utf8'));
  assert.is(file.definitions.rule.oneOf, undefined, 'the file names none: the registry is the one list');
});

test('every rule type has its own file; identity rules are the registry\'s identity kind', () => {
  for (const type of RULE_TYPES) assert.ok(existsSync(new URL(`../../compiler/access/rules/${kebab(type)}.ts`, import.meta.url)), type);
  assert.equal([...IDENTITY_RULES], ['allowPublic', 'allowAuthenticated', 'matchUserRole', 'matchOrganizationRole', 'matchEmailDomain', 'matchIpAddress']);
  assert.is(RULES.lifecycleStatus.needsIdentity, true);
});

test('descriptions: a type names itself unless its file says more', () => {
  assert.is(describeRule({ type: 'allowPublic' }), 'allowPublic');
  assert.is(describeRule({ type: 'matchResourceOwner', property: 'author' }), 'matchResourceOwner (author)');
  assert.is(describeRule({ type: 'lifecycleStatus', deniedStatuses: ['gone'] }), 'lifecycleStatus (denied: gone)');
});

test('an unknown rule type is refused with the known ones listed from the registry', () => {
  const model = { api: { ...testApi('r'), scenarios: [{ label: 'X', predicate: { style: 'and', children: [{ type: 'matchMoonPhase' }] } }] },
    entities: { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true } } } } };
  try {
    compileModel(model);
    assert.unreachable('refused');
  } catch (err) {
    if (!(err instanceof ModelValidationError)) throw err;
    assert.ok(err.errors.some((e) => e.rule === 'Unknown rule' && e.message.endsWith(`(known: ${RULE_TYPES.join(', ')})`)));
  }
});

test.run();
