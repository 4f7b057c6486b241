// allowAuthenticated: any signed-in caller (a token with a sub).
import { defineRule } from './def.ts';

export const allowAuthenticated = defineRule<{ type: 'allowAuthenticated' }>({
  kind: 'identity',
  summary: 'any signed-in caller',
  schema: { additionalProperties: false, properties: { type: { const: 'allowAuthenticated' } } },
  sql: () => '(SELECT auth.uid() IS NOT NULL)',
});
