// Membership: a manyToMany relation's edge properties (`role`, `status`), free text or one of an enum each. The join
// table holds them as columns, a link's body writes them and each linked record shows them in `edge`. A relation module.
import type { EdgeProperty, JsonSchema, RelationModuleDef } from './def.ts';

export interface MembershipOptions {
  edge?: { role?: EdgeProperty; status?: EdgeProperty };
}

const EDGE_PROPERTY: JsonSchema = {
  type: 'object', additionalProperties: false,
  properties: { enum: { $ref: '#/definitions/nonEmptyStrings' }, displayName: { type: 'string', minLength: 1 } },
};

export const Membership: RelationModuleDef<MembershipOptions> = {
  summary: "a manyToMany relation's edge properties (role, status): columns of the join table, each free text or one of an enum",
  options: {
    type: 'object', additionalProperties: false,
    properties: { edge: { type: 'object', additionalProperties: false, properties: { role: EDGE_PROPERTY, status: EDGE_PROPERTY } } },
  },
  edge: (o) => Object.fromEntries(Object.entries(o.edge ?? {}).filter((x): x is [string, EdgeProperty] => Boolean(x[1]))),
};
