// The renames the model says (renamedFrom), as the first statements of a table's SQL: its tables and columns
// take their new names before anything else reconciles them, so their rows and values stay.
import type { Model } from '../model/types.ts';
import type { TableIR } from '../ir/types.ts';
import { buildSchema } from '../ir/build.ts';
import { entityRename, hasRenames, previousModel } from '../model/renames.ts';
import { literal } from './ident.ts';

/** The tables as they were before the model's renames, in the order of `tables` (empty without renames). */
function tablesBefore(model: Model, tables: TableIR[]): TableIR[] {
  if (!hasRenames(model)) return [];
  const before = buildSchema(previousModel(model)).tables;
  if (before.length !== tables.length) throw new Error('renamedFrom: the model before its renames has other tables');
  return before;
}

/** Renamed tables: new name -> earlier name. */
export function renamedTables(model: Model, tables: TableIR[]): Map<string, string> {
  const before = tablesBefore(model, tables);
  return new Map(before.flatMap((old, i) => old.name !== tables[i]!.name ? [[tables[i]!.name, old.name] as const] : []));
}

/**
 * The functions a renamed table had under its earlier name (read from its SQL's COMMENT ON FUNCTION lines): dropped
 * once the triggers call the new ones.
 */
export function earlierFunctionsDdl(table: string, earlier: string, sql: string): string {
  const re = new RegExp(String.raw`^COMMENT ON FUNCTION "(app|lib)"\."${table}_(\w+)"\(([^)]*)\)\s+IS\b`, 'gm');
  return [...sql.matchAll(re)].map((m) => `DROP FUNCTION IF EXISTS "${m[1]}"."${earlier}_${m[2]}"(${m[3]});`).join('\n');
}

/** Per table of the model (by its new name): the statements that rename it and its columns. */
export function renameDdl(model: Model, tables: TableIR[]): Map<string, string> {
  const out = new Map<string, string>();
  const before = tablesBefore(model, tables);
  if (!before.length) return out;
  const entities = new Set(Object.entries(model.entities).flatMap(([name, e]) => {
    const r = entityRename(name, e);
    return r && r.entity !== name ? [`SELECT meta.rename_entity(${literal(r.entity)}, ${literal(name)});`] : [];
  }));
  tables.forEach((t, i) => {
    const old = before[i]!;
    const lines: string[] = [];
    if (old.name !== t.name) lines.push(`SELECT meta.rename_table(${literal(old.name)}, ${literal(t.name)});`);
    if (t.kind === 'entity') for (const e of entities) if (e.endsWith(`, ${literal(t.entityName)});`)) lines.push(e);
    if (old.columns.length === t.columns.length) {
      t.columns.forEach((c, j) => {
        const was = old.columns[j]!.name;
        if (was !== c.name) lines.push(`SELECT meta.rename_column(${literal(t.name)}, ${literal(was)}, ${literal(c.name)});`);
      });
    }
    if (lines.length) out.set(t.name, lines.join('\n'));
  });
  return out;
}
