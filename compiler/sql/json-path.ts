// SQL for a dot path into a JSON column, with the Tier B cast (spec 2.5). Indexes, filters and
// sorting all build the expression here, so a query matches its index expression exactly.
import type { JsonCast } from '../model/types.ts';
import { literal } from './ident.ts';

/** '{address,city}' as a text[] literal for #> and #>>. */
export function pathLiteral(path: string): string {
  const parts = path.split('.').map((s) => `"${s.replace(/(["\\])/g, '\\$1')}"`);
  return `${literal(`{${parts.join(',')}}`)}::text[]`;
}

/** `column` is already quoted. 'json' keeps jsonb (containment, gin); casts give typed scalars. */
export function jsonPathExpr(column: string, path: string, cast: JsonCast | 'json'): string {
  const p = pathLiteral(path);
  switch (cast) {
    case 'json': return `(${column} #> ${p})`;
    case 'Text': return `(${column} #>> ${p})`;
    case 'Integer': return `lib.jsonb_integer(${column} #> ${p})`;
    case 'Decimal': return `lib.jsonb_numeric(${column} #> ${p})`;
    case 'Boolean': return `lib.jsonb_boolean(${column} #> ${p})`;
    default: {
      const never: never = cast;
      throw new Error(`unknown cast ${String(never)}`);
    }
  }
}
