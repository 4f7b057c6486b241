// The summary at the top of a migration: what was added, changed, renamed and removed in the model's terms
// (entity, property, relation, scenario), one line each, compared with the parts of the model committed before.
import type { Model, Scenario } from '../model/types.ts';
import { entityRename } from '../model/renames.ts';

/** Prefix of the units that stand for parts of the model rather than for SQL. */
const TERM = 'model:';

const json = (value: unknown) => JSON.stringify(value);
const without = <T extends object>(o: T, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

/** The parts of the model a summary names, each as `model:<kind> <name>` with the text its hash is taken of. */
export function modelUnits(model: Model): Map<string, string> {
  const units = new Map<string, string>();
  const scenarios = (at: string, list: Scenario[] | undefined) => {
    for (const s of list ?? []) units.set(`${TERM}scenario ${at}${s.label}`, json(s));
  };
  units.set(`${TERM}settings api`, json(without(model.api, 'scenarios')));
  scenarios('', model.api.scenarios);
  for (const [name, e] of Object.entries(model.entities)) {
    const actions = Object.fromEntries(Object.entries(e.actions ?? {}).map(([a, s]) => [a, without(s, 'scenarios')]));
    units.set(`${TERM}entity ${name}`, json({ ...without(e, 'properties', 'relations', 'scenarios', 'actions', 'renamedFrom'), actions }));
    for (const [p, def] of Object.entries(e.properties)) units.set(`${TERM}property ${name}.${p}`, json(without(def, 'renamedFrom')));
    for (const [r, def] of Object.entries(e.relations ?? {})) units.set(`${TERM}relation ${name}.${r}`, json(def));
    scenarios(`${name}/`, e.scenarios);
    for (const [a, s] of Object.entries(e.actions ?? {})) scenarios(`${name}.${a}/`, s.scenarios);
  }
  return units;
}

/** What the delta's statements do, counted: columns added, functions replaced, policies rebuilt, the rest. */
function sqlLine(statements: { unit: string; sql: string }[]): string {
  const count = (test: (s: { unit: string; sql: string }) => boolean) => statements.filter(test).length;
  const tablesOf = (kind: string) => new Set(statements.filter((s) => s.unit.endsWith(` ${kind}`)).map((s) => s.unit.split(' ')[0])).size;
  const parts = [
    [count((s) => /^(ALTER TABLE \S+ ADD COLUMN|SELECT meta\.ensure_column)/.test(s.sql)), 'column added or reconciled', 'columns added or reconciled'],
    [count((s) => /^SELECT meta\.rename_/.test(s.sql)), 'rename', 'renames'],
    [count((s) => /^CREATE OR REPLACE FUNCTION/.test(s.sql)), 'function replaced', 'functions replaced'],
    [tablesOf('policies'), "table's policies rebuilt", "tables' policies rebuilt"],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
  const rest = statements.length - count((s) => /^(ALTER TABLE \S+ ADD COLUMN|SELECT meta\.(ensure_column|rename_)|CREATE OR REPLACE FUNCTION)/.test(s.sql))
    - statements.filter((s) => s.unit.endsWith(' policies')).length;
  return `-- In SQL: ${[...said, `${rest} other statement${rest === 1 ? '' : 's'}`].join(', ')}.`;
}

/**
 * The summary's lines: the model's parts added, changed, renamed (renamedFrom) and removed since `state`, then
 * what the statements do. A first migration says what the whole model holds instead.
 */
export function summarize(model: Model, state: Map<string, string>, terms: Map<string, string>,
  statements: { unit: string; sql: string }[]): string[] {
  const before = [...state.keys()].filter((u) => u.startsWith(TERM));
  if (before.length === 0) {
    const kinds = ['entity', 'property', 'relation', 'scenario'].map((k) => [k, [...terms.keys()].filter((u) => u.startsWith(`${TERM}${k} `)).length] as const);
    const plural = (k: string, n: number) => n === 1 ? k : k === 'entity' ? 'entities' : k === 'property' ? 'properties' : `${k}s`;
    return [`-- The whole model: ${kinds.map(([k, n]) => `${n} ${plural(k, n)}`).join(', ')}.`, sqlLine(statements)];
  }
  // Earlier names of the model's parts: an entity renamed carries its properties, relations and scenarios along.
  const earlier = new Map<string, string>();
  for (const [name, e] of Object.entries(model.entities)) {
    const was = entityRename(name, e)?.entity ?? name;
    if (was !== name) earlier.set(`${TERM}entity ${name}`, `${TERM}entity ${was}`);
    for (const u of terms.keys()) {
      const m = new RegExp(`^${TERM}(property|relation|scenario) ${name}([./])(.*)$`).exec(u);
      if (!m) continue;
      const prop = m[1] === 'property' ? e.properties[m[3]!]?.renamedFrom ?? m[3] : m[3];
      if (was !== name || prop !== m[3]) earlier.set(u, `${TERM}${m[1]} ${was}${m[2]}${prop}`);
    }
  }
  const name = (u: string) => u.slice(TERM.length);
  const lines: string[] = [];
  const accounted = new Set<string>();
  for (const [u, h] of terms) {
    const was = earlier.get(u);
    if (state.get(u) === h) continue;
    if (!state.has(u) && was && state.has(was)) {
      accounted.add(was);
      const renamed = name(was).split(' ')[1] !== name(u).split(' ')[1];
      if (renamed && (u.startsWith(`${TERM}entity `) || u.startsWith(`${TERM}property `))) lines.push(`--   renamed ${name(was)} to ${name(u).split(' ')[1]}`);
      if (state.get(was) !== h && !u.startsWith(`${TERM}entity `)) lines.push(`--   changed ${name(u)}`);
      continue;
    }
    lines.push(`--   ${state.has(u) ? 'changed' : 'added'} ${name(u)}`);
  }
  for (const u of before) if (!terms.has(u) && !accounted.has(u)) lines.push(`--   removed ${name(u)}`);
  return ['-- What changed in the model:', ...(lines.length ? lines : ['--   nothing the model names (the compiler\'s SQL changed)']), sqlLine(statements)];
}
