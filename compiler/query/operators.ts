// The filter operators, defined once: what each one's value is, which properties it applies to, and its
// SQL. Read by the gateway's parser (server/request/filter.ts), the OpenAPI and RAML generators, and the
// SQL filter emitter through lib.operators(), which the compiler writes from this table.
import type { PropertyType } from '../model/types.ts';

/** What a filter names: a plain property, a multiple one, a whole JSON one, a path inside one, a file. */
export type Operand = 'scalar' | 'array' | 'json' | 'jsonPath' | 'file';

/** The value an operator takes: one value, a (comma) list, true/false, a JSON document or list, a LIKE pattern, words. */
export type ValueKind = 'single' | 'list' | 'flag' | 'document' | 'pattern' | 'words';

export interface Operator {
  value: ValueKind;
  /** The operands it applies to. */
  operands: readonly Operand[];
  /** On a plain property, the types it applies to (absent: every type). */
  types?: readonly PropertyType[];
  /** On a plain property, only when it is searchIndexed. */
  searchIndexed?: boolean;
  /** The SQL operator of a comparison with one value. */
  sql?: string;
  /** What it means, for the generated API documents. */
  description: string;
}

const VALUES: readonly Operand[] = ['scalar', 'jsonPath'];
const ORDERED: readonly PropertyType[] = ['String', 'Number', 'Date', 'Time', 'DateTime'];

export const OPERATORS = {
  eq: { value: 'single', operands: VALUES, sql: '=', description: 'equal to' },
  ne: { value: 'single', operands: VALUES, sql: 'IS DISTINCT FROM', description: 'not equal to (a missing value counts as different)' },
  gt: { value: 'single', operands: VALUES, types: ORDERED, sql: '>', description: 'greater than' },
  gte: { value: 'single', operands: VALUES, types: ORDERED, sql: '>=', description: 'greater than or equal to' },
  lt: { value: 'single', operands: VALUES, types: ORDERED, sql: '<', description: 'less than' },
  lte: { value: 'single', operands: VALUES, types: ORDERED, sql: '<=', description: 'less than or equal to' },
  in: { value: 'list', operands: VALUES, description: 'one of a list' },
  nin: { value: 'list', operands: VALUES, description: 'none of a list (a missing value counts as none)' },
  like: { value: 'pattern', operands: VALUES, types: ['String'], sql: 'LIKE', description: 'matches a pattern, * for any text' },
  ilike: { value: 'pattern', operands: VALUES, types: ['String'], sql: 'ILIKE', description: 'matches a pattern ignoring case, * for any text' },
  contains: { value: 'document', operands: ['json', 'jsonPath', 'array'], description: 'contains a JSON document, or every listed value' },
  exists: { value: 'flag', operands: ['jsonPath'], description: 'the JSON path is present (true) or absent (false)' },
  null: { value: 'flag', operands: ['scalar', 'array', 'json', 'jsonPath', 'file'], description: 'is null (true) or not (false)' },
  search: { value: 'words', operands: ['scalar'], searchIndexed: true, description: 'full-text search (web search syntax)' },
} as const satisfies Record<string, Operator>;

export type FilterOp = keyof typeof OPERATORS;
export const FILTER_OPS = Object.keys(OPERATORS) as FilterOp[];

export interface OperandFacts {
  operand: Operand;
  type: PropertyType;
  /** The manifest's flag: absent is false. */
  searchIndexed?: boolean;
}

const OPERAND_NAMES: Record<Operand, string> = {
  scalar: 'plain', array: 'multiple', json: 'whole JSON', jsonPath: 'JSON path', file: 'file',
};

/** Why `op` cannot apply to a target with these facts, or undefined when it can. */
export function refusal(op: FilterOp, t: OperandFacts): string | undefined {
  const o: Operator = OPERATORS[op];
  if (op === 'exists' && t.operand !== 'jsonPath') return 'applies to paths inside JSON properties (use null for a property itself)';
  if (op === 'contains' && !o.operands.includes(t.operand)) return 'applies to JSON and multiple properties';
  if (op === 'search' && t.operand === 'jsonPath') return 'applies to searchIndexed properties';
  if (!o.operands.includes(t.operand)) return `does not apply to ${OPERAND_NAMES[t.operand]} properties`;
  if (t.operand !== 'scalar') return undefined;
  if (o.searchIndexed && !t.searchIndexed) return 'applies to searchIndexed properties only';
  if (o.types && !o.types.includes(t.type)) return o.types.length === 1 ? `applies to ${o.types[0]} properties` : `does not apply to ${t.type} properties`;
  return undefined;
}

/** The operators that apply to a target, in the table's order. */
export function operatorsFor(t: OperandFacts): FilterOp[] {
  return FILTER_OPS.filter((op) => !refusal(op, t));
}
