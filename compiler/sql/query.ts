// The query language's facts as SQL, written from their one home in compiler/query/: the operator table
// the filter emitter reads (lib.operators) and the paging bounds (lib.page, lib.per_page).
import { OPERATORS } from '../query/operators.ts';
import { COUNT_MODES, DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../query/paging.ts';
import { literal } from './ident.ts';
import { json } from './layout.ts';

/** Per operator what the SQL emitter needs: its value kind, the types it applies to, its SQL operator. */
function operatorsJson(): string {
  const facts = Object.fromEntries(Object.entries(OPERATORS).map(([op, o]) => [op, {
    value: o.value, ...('types' in o ? { types: o.types } : {}), ...('sql' in o ? { sql: o.sql } : {}),
  }]));
  return json(facts);
}

export function queryLanguageSql(): string {
  return [
    '-- The filter operators (compiler/query/operators.ts): value kind, types, SQL operator.',
    'CREATE OR REPLACE FUNCTION lib.operators() RETURNS jsonb LANGUAGE sql IMMUTABLE AS $fn$',
    `  SELECT ${literal(operatorsJson())}::jsonb`,
    '$fn$;',
    '',
    `-- Paging of lists (compiler/query/paging.ts): page from 1, per_page 1 to ${MAX_PER_PAGE} (defaults 1 and ${DEFAULT_PER_PAGE}).`,
    'CREATE OR REPLACE FUNCTION lib.page(args jsonb) RETURNS int LANGUAGE plpgsql AS $fn$',
    "DECLARE page int := coalesce((args ->> 'page')::int, 1);",
    'BEGIN',
    "  IF page < 1 THEN PERFORM lib.bad_request('page must be 1 or more'); END IF;",
    '  RETURN page;',
    'END $fn$;',
    '',
    'CREATE OR REPLACE FUNCTION lib.per_page(args jsonb) RETURNS int LANGUAGE plpgsql AS $fn$',
    `DECLARE per_page int := coalesce((args ->> 'per_page')::int, ${DEFAULT_PER_PAGE});`,
    'BEGIN',
    `  IF per_page < 1 OR per_page > ${MAX_PER_PAGE} THEN PERFORM lib.bad_request('per_page must be between 1 and ${MAX_PER_PAGE}'); END IF;`,
    '  RETURN per_page;',
    'END $fn$;',
    '',
    `-- How a list counts (${COUNT_MODES.join(', ')}; default ${COUNT_MODES[0]}), and the paging arguments that exclude each other.`,
    'CREATE OR REPLACE FUNCTION lib.count_mode(args jsonb) RETURNS text LANGUAGE plpgsql AS $fn$',
    `DECLARE mode text := coalesce(args ->> 'count', ${literal(COUNT_MODES[0])});`,
    'BEGIN',
    `  IF NOT mode = ANY (${literal(`{${COUNT_MODES.join(',')}}`)}::text[]) THEN PERFORM lib.bad_request(${literal(`count must be one of ${COUNT_MODES.join(', ')}`)}, 'count', 'count'); END IF;`,
    "  IF args ? 'after' AND args ? 'before' THEN PERFORM lib.bad_request('after and before exclude each other', 'after', 'cursor'); END IF;",
    "  IF (args ? 'after' OR args ? 'before') AND args ? 'page' THEN PERFORM lib.bad_request('page and a cursor (after, before) exclude each other', 'page', 'cursor'); END IF;",
    '  RETURN mode;',
    'END $fn$;',
  ].join('\n');
}
