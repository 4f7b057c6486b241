// The model's JSON Schema made whole: compiler/model.schema.json names no modules and no rule types, and the
// registries (compiler/modules, compiler/access/rules) fill them in, for validation and for the published file.
import { modulesSchema, relationModulesSchema } from '../modules/index.ts';
import { rulesSchema } from '../access/rules/index.ts';

/** The manyToMany branch of the schema's relation. */
export const manyToManyBranch = (s: Record<string, any>): Record<string, any> =>
  (s.definitions.relation.oneOf as Array<Record<string, any>>).find((b) => b.properties?.kind?.const === 'manyToMany')!;

/** `raw` (the parsed file) with a property's and a manyToMany relation's `modules`, and the rule `oneOf`, filled in. */
export function composeModelSchema(raw: Record<string, any>): Record<string, any> {
  Object.assign(raw.definitions.property.properties.modules, modulesSchema());
  Object.assign(manyToManyBranch(raw).properties.modules, relationModulesSchema());
  Object.assign(raw.definitions.rule, rulesSchema());
  return raw;
}
