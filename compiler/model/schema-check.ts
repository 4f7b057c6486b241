// Structural validation of a model file against compiler/model.schema.json with ajv.
// ajv's raw errors are translated into ModelErrors that name the pointer and the rule broken.
// A property's `modules` and a rule's `oneOf` come from the registries (compiler/modules, compiler/access/rules),
// composed in at load.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import type { ModelError } from './errors.ts';
import { MODULE_NAMES, RELATION_MODULE_NAMES } from '../modules/index.ts';
import { RULE_TYPES } from '../access/rules/index.ts';
import { composeModelSchema } from './schema-compose.ts';

/** The model's JSON Schema: compiler/model.schema.json with the registries' modules and rule types. */
export function modelSchema(): Record<string, any> {
  return composeModelSchema(JSON.parse(readFileSync(new URL('../model.schema.json', import.meta.url), 'utf8')));
}

const schema = modelSchema();
const ajv = new Ajv({ allErrors: true, discriminator: true, strict: true, strictRequired: false, allowUnionTypes: true });
const check = ajv.compile(schema);


/** Returns the structural errors of `input`; empty when it matches the model schema. */
export function schemaErrors(input: unknown): ModelError[] {
  if (check(input)) return [];
  const raw = check.errors ?? [];
  // ajv reports a bad name twice: the name's own rule (with `propertyName` set) and propertyNames.
  const nameRules = new Map(raw.filter((e) => e.propertyName !== undefined).map((e) => [`${e.instancePath}/${e.propertyName}`, e.message]));
  const errors = raw
    .filter((e) => e.keyword !== 'if' && e.propertyName === undefined)
    .map((e) => translate(e, nameRules));
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.pointer} ${e.rule} ${e.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

function translate(e: ErrorObject, nameRules: Map<string, string | undefined>): ModelError {
  const at = e.instancePath;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(e.params.additionalProperty);
      const where = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (/\/modules$/.test(at)) {
        const known = /\/relations\/[^/]+\/modules$/.test(at) ? RELATION_MODULE_NAMES : MODULE_NAMES;
        return { pointer: where, rule: 'Unknown module', message: `unknown module "${key}" (known: ${known.join(', ')})` };
      }
      return { pointer: where, rule: 'Unknown key', message: `unknown key "${key}"` };
    }
    case 'discriminator': {
      const tag = String(e.params.tag);
      const value = JSON.stringify(e.params.tagValue);
      if (tag === 'type') {
        return { pointer: at, rule: 'Unknown rule', message: `unknown rule type ${value} (known: ${RULE_TYPES.join(', ')})` };
      }
      return { pointer: at, rule: 'Unknown relation kind', message: `unknown relation kind ${value} (known: oneToOne, manyToMany)` };
    }
    case 'propertyNames': {
      const name = String(e.params.propertyName);
      const where = `${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      return { pointer: where, rule: 'Invalid name', message: `name ${JSON.stringify(name)} ${nameRules.get(`${at}/${name}`) ?? 'is not allowed'}` };
    }
    case 'enum':
      return { pointer: at, rule: 'Model schema', message: `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'required':
      return { pointer: at, rule: 'Model schema', message: `"${String(e.params.missingProperty)}" is required` };
    default:
      return { pointer: at, rule: 'Model schema', message: e.message ?? e.keyword };
  }
}
