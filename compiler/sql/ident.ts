// The one place identifiers and compiler-owned literals become SQL text (PostgREST escapeIdent).
// Runtime values never pass through here: they are always $n parameters.
import { createHash } from 'node:crypto';
import { fill } from './layout.ts';

/**
 * A definer function's attributes. pg_temp is named last: left out, PostgreSQL searches it *first* for table and
 * type names, so a session could shadow `text` or `jsonb` with a domain of its own whose CHECK then runs as
 * the function's owner (the compiler/sql/*.sql definers write the same clause; test/db/privileges.test.ts checks all).
 */
export const DEFINER = 'SECURITY DEFINER SET search_path = pg_catalog, pg_temp';

/** Quotes an identifier: wrap in ", double any ", refuse NUL. */
export function ident(name: string): string {
  if (name.includes('\0')) throw new Error('identifier contains NUL');
  return `"${name.replace(/"/g, '""')}"`;
}

/** schema.name, both quoted. */
export function qname(schema: string, name: string): string {
  return `${ident(schema)}.${ident(name)}`;
}

/** A string literal for values the compiler owns (DDL text, enum lists, comments). */
export function literal(value: string): string {
  if (value.includes('\0')) throw new Error('literal contains NUL');
  return `'${value.replace(/'/g, "''")}'`;
}

/** A SQL literal for a JSON-compatible scalar default: strings quoted, numbers and booleans bare. */
export function scalarLiteral(value: string | number | boolean): string {
  if (typeof value === 'string') return literal(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`non-finite number ${value}`);
    return String(value);
  }
  return value ? 'true' : 'false';
}

/** text[] literal: ARRAY['a','b']::text[], a long one filled into indented lines. */
export function textArray(values: readonly string[]): string {
  return fill('ARRAY[', values.map(literal), ']::text[]');
}

/** PostgreSQL's longest identifier (NAMEDATALEN - 1); a longer one is cut silently, so two may become one. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * A database object name from parts joined by "_", kept within PostgreSQL's 63 bytes:
 * a longer one keeps its start and gets a short hash so it stays unique and stable.
 */
export function pgName(...parts: string[]): string {
  const full = parts.join('_');
  if (Buffer.byteLength(full) <= MAX_IDENTIFIER_BYTES) return full;
  const hash = createHash('sha1').update(full).digest('hex').slice(0, 8);
  let head = full;
  while (Buffer.byteLength(head) > MAX_IDENTIFIER_BYTES - 9) head = head.slice(0, -1);
  return `${head}_${hash}`;
}
