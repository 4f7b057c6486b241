// allowPublic: every caller, signed in or not.
import { defineRule } from './def.ts';

export const allowPublic = defineRule<{ type: 'allowPublic' }>({
  kind: 'identity',
  summary: 'every caller',
  schema: { additionalProperties: false, properties: { type: { const: 'allowPublic' } } },
  sql: () => 'true',
});
