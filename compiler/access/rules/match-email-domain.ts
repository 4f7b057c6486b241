// matchEmailDomain: a caller whose email claim is at one of the domains.
import { textArray } from '../../sql/ident.ts';
import { defineRule } from './def.ts';

export const matchEmailDomain = defineRule<{ type: 'matchEmailDomain'; domains: string[] }>({
  kind: 'identity',
  summary: "a caller whose email is at one of the domains",
  schema: {
    additionalProperties: false, required: ['domains'],
    properties: {
      type: { const: 'matchEmailDomain' },
      domains: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$' } },
    },
  },
  // The domain is what follows the last @: in "a@corp.com@evil.com" (or a quoted "a@corp.com"@evil.com) it is evil.com.
  sql: (rule) => `(SELECT substring(auth.email() FROM '@([^@]*)$') = ANY (${textArray(rule.domains.map((d) => d.toLowerCase()))}))`,
});
