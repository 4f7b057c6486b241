// DDL for tables, columns and managed constraints, emitted as calls to the meta.* reconcile
// helpers so the same script creates a fresh schema or converges an existing one.
import type { ConstraintIR, IndexIR, TableIR } from '../ir/types.ts';
import { ident, literal, qname, textArray } from './ident.ts';
import { call as callSql } from './layout.ts';

const call = (fn: string, args: string[]) => `SELECT ${callSql(`meta.${fn}`, args, 140)};`;
const info = (o: { property: string; rule: string; hint?: string }) =>
  `${literal(JSON.stringify({ property: o.property, rule: o.rule, ...(o.hint ? { hint: o.hint } : {}) }))}::jsonb`;
const nullable = (v: string | undefined) => (v === undefined ? 'NULL' : literal(v));

export function tableDdl(t: TableIR): string {
  const rel = qname('app', t.name);
  const lines = [`CREATE TABLE IF NOT EXISTS ${rel} ();`, `COMMENT ON TABLE ${rel} IS ${literal(t.comment)};`];
  for (const c of t.columns) {
    const owner = c.ownerOrganization;
    lines.push(owner ? call('ensure_owned_organization', [literal(t.name), literal(owner.table), literal(owner.key), literal(owner.column)])
      : call('ensure_column', [literal(t.name), literal(c.name), literal(c.sqlType), String(c.notNull), nullable(c.defaultSql), String(c.identity)]));
    lines.push(`COMMENT ON COLUMN ${rel}.${ident(c.name)} IS ${c.comment ? literal(c.comment) : 'NULL'};`);
  }
  return lines.join('\n');
}

/** Primary, unique and check constraints; foreign keys come later, once every key exists. */
export function constraintDdl(t: TableIR, kinds: ReadonlyArray<ConstraintIR['kind']>): string {
  return t.constraints.filter((c) => kinds.includes(c.kind))
    .map((c) => call('ensure_constraint', [literal(t.name), literal(c.name), literal(c.def), info(c)]))
    .join('\n');
}

const indexDef = (t: TableIR, i: IndexIR) => `CREATE INDEX ${ident(i.name)} ON ${qname('app', t.name)} USING ${i.method} ${i.expr}`;

export function indexDdl(t: TableIR): string {
  return t.indexes.map((i) => call('ensure_index', [literal(t.name), literal(i.name), literal(indexDef(t, i)), info(i)])).join('\n');
}

const list = textArray;

/** Before the columns: the managed constraints and indexes the model no longer has, or has changed, dropped. */
export function replacedDdl(t: TableIR): string {
  return call('drop_replaced', [literal(t.name), list(t.constraints.map((c) => c.name)), list(t.constraints.map((c) => c.def)),
    list(t.indexes.map((i) => i.name)), list(t.indexes.map((i) => indexDef(t, i)))]);
}

/** Removes the columns the model no longer has (when they hold no value). */
export function staleDdl(t: TableIR): string {
  return call('drop_stale_columns', [literal(t.name), list(t.columns.map((c) => c.name))]);
}

export function staleTablesDdl(tables: TableIR[]): string {
  return call('drop_stale_tables', [list(tables.map((t) => t.name))]);
}
