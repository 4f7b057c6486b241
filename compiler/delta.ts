// Migrations a team can review: against a folder of committed graphile-migrate migrations, the script holds
// the change and only the change: a summary in the model's terms, then the statements whose SQL changed.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emitEngine, emitMigration, modelParts, REPLACED_SECTION, sectionHeading, type EmitOptions, type Part } from './emit.ts';
import { splitStatements, subjectOf } from './migrations/statements.ts';
import { modelUnits, summarize } from './migrations/summary.ts';
import { asPatch, committedDocuments, type Documents } from './migrations/documents.ts';
import { ident, qname } from './sql/ident.ts';
import type { Model } from './model/types.ts';

/**
 * A line naming a unit a script installs (`-- unit tags column color 1a2b…`) or removes (`… removed`). A unit is
 * what a statement is about (a column, a function, a table's policies, the rest of a section of a table's SQL),
 * or a part of the model (`model property Tag.color`), which the summary compares.
 */
const MARKER = /^-- unit (.+) ([0-9a-f]{16}|removed)$/gm;
export const ENGINE_UNIT = 'engine';

/** Unit -> hash of its SQL (or of its part of the model), as the committed migrations left the database. */
export type State = Map<string, string>;

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The committed migrations of `folder`, in order. */
function committedScripts(folder: string): string[] {
  const dir = join(folder, 'committed');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => /^\d+(-[-_a-zA-Z0-9]*)?\.sql$/.test(f)).sort().map((f) => readFileSync(join(dir, f), 'utf8'));
}

/** What the committed migrations of `folder` leave: each unit's hash, from their unit lines, and the stored documents. */
export interface Committed { state: State; documents: Documents }

export function committed(folder: string): Committed {
  const scripts = committedScripts(folder);
  const state: State = new Map();
  for (const script of scripts) {
    for (const [, unit, hash] of script.matchAll(MARKER)) {
      if (hash === 'removed') state.delete(unit!);
      else state.set(unit!, hash!);
    }
  }
  return { state, documents: committedDocuments(scripts) };
}

/** Whether the folder holds committed migrations: then its script is a delta against them. */
export function hasCommitted(folder: string): boolean {
  const dir = join(folder, 'committed');
  return existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.sql'));
}

export interface Delta {
  sql: string;
  /** The units the script installs or removes. */
  units: string[];
}

/** The engine alone, for its own migration: empty when the committed migrations hold this engine. */
export function engineDelta(state: State, opts: EmitOptions = {}): Delta {
  const engine = emitEngine(opts), hash = hashOf(engine);
  if (state.get(ENGINE_UNIT) === hash) return { sql: '', units: [] };
  return {
    sql: ['-- The modelapi request engine: the same for every model; its own migration, replaced only when', '-- modelapi is upgraded.',
      `-- unit ${ENGINE_UNIT} ${hash}`, '', engine, ''].join('\n'),
    units: [ENGINE_UNIT],
  };
}

/** One statement of the model's SQL, with the unit it belongs to. */
interface Piece extends Part { unit: string }

/** Short names for the sections, so that a statement no rule names still has a unit that reads well. */
const sectionUnit = (section: string) => section.toLowerCase().replace(/\(.*?\)|:.*$/g, '').replace(/[^a-z]+/g, ' ').trim().split(' ')
  .filter((w) => !['of', 'the', 'and', 'a', 'from', 'to', 'each', 'has', 'no', 'longer', 'or'].includes(w)).slice(0, 3).join('-');

/** The model's SQL as statements, each in its unit: `<table or model> <what it is about>`. */
function piecesOf(model: Model, opts: EmitOptions): Piece[] {
  return modelParts(model, opts).flatMap((p) => splitStatements(p.sql).map((sql) => {
    const subject = /^GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA/.test(sql) ? 'grants' : subjectOf(sql) ?? sectionUnit(p.section);
    return { ...p, sql, unit: `${p.table || 'model'} ${subject}` };
  }));
}

/** Run again whenever anything is: the request roles' EXECUTE on the api functions a delta creates. */
const ALWAYS = 'model grants';

/** A new optional column, added as a person would write it (the reconciling call is for columns that exist). */
function addColumn(sql: string): string | undefined {
  const m = /^SELECT meta\.ensure_column\('((?:[^']|'')+)', '((?:[^']|'')+)', '((?:[^']|'')+)', false, (NULL|'(?:[^']|'')*'), false\);$/.exec(sql);
  if (!m) return undefined;
  const un = (s: string) => s.replace(/''/g, "'");
  const def = m[4] === 'NULL' ? '' : ` DEFAULT ${un(m[4]!.slice(1, -1))}`;
  return `ALTER TABLE ${qname('app', un(m[1]!))} ADD COLUMN IF NOT EXISTS ${ident(un(m[2]!))} ${un(m[3]!)}${def};`;
}

/**
 * What brings the committed state to `model`: the engine if it changed, then the statements whose unit changed,
 * in the script's order. A table a change reshapes (a column changed, a constraint or index replaced) carries all
 * of its statements, as the whole script would run them; added columns and replaced functions carry their own.
 */
export function modelDelta(model: Model, { state, documents }: Committed, withEngine = true, opts: EmitOptions = {}): Delta {
  const pieces = piecesOf(model, opts);
  const units = new Map<string, string[]>();
  for (const p of pieces) units.set(p.unit, [...units.get(p.unit) ?? [], p.sql]);
  const hashes = new Map([...units].map(([u, sqls]) => [u, hashOf(sqls.join('\n'))]));
  const terms = modelUnits(model);
  const changed = new Set([...hashes].filter(([u, h]) => state.get(u) !== h).map(([u]) => u));
  const engine = withEngine ? engineDelta(state, opts) : { sql: '', units: [] };
  if ([...changed].every((u) => u === ALWAYS)) return engine;
  changed.add(ALWAYS);
  // A table whose columns change or whose constraints and indexes are replaced runs whole, as the whole script does.
  const existed = (table: string) => [...state.keys()].some((u) => u.startsWith(`${table} `));
  const reshaped = new Set(pieces.filter((p) => p.table && changed.has(p.unit) && state.has(p.unit)
    && (/ column /.test(p.unit) || p.section === REPLACED_SECTION)).map((p) => p.table));
  for (const p of pieces) if (reshaped.has(p.table)) changed.add(p.unit);
  const chosen = pieces.filter((p) => changed.has(p.unit)).map((p) => {
    const add = p.table && existed(p.table) && !state.has(p.unit) ? addColumn(p.sql) : undefined;
    const patch = add ?? (state.has(p.unit) ? asPatch(p.sql, documents) : undefined);
    return patch ? { ...p, sql: patch } : p;
  });
  const termHashes = new Map([...terms].map(([u, text]) => [u, hashOf(text)]));
  const all = new Map([...hashes, ...termHashes]);
  const removed = [...state.keys()].filter((u) => u !== ENGINE_UNIT && !all.has(u));
  const markers = [
    ...[...all].filter(([u, h]) => state.get(u) !== h && (changed.has(u) || termHashes.has(u))).map(([u, h]) => `-- unit ${u} ${h}`),
    ...removed.map((u) => `-- unit ${u} removed`),
  ];
  const header = [
    `-- Generated by the modelapi compiler from the model "${model.api.slug}" ${model.api.version}: what changed since the`,
    '-- committed migrations. Do not edit: change the model and run `npm run compile`. Idempotent.',
    '--',
    ...summarize(model, state, termHashes, chosen),
  ];
  const footer = ['-- The units this migration installs, which the next one is compared with:', ...markers];
  return {
    sql: [engine.sql, [...header, '', render(chosen), '', ...footer, ''].join('\n')].filter(Boolean).join('\n'),
    units: [...engine.units, ...markers.map((m) => m.split(' ').slice(2, -1).join(' '))],
  };
}

/** Statements under their sections' headings, a table's statements of a section together. */
function render(pieces: Piece[]): string {
  const out: string[] = [];
  let section: string | undefined, table: string | undefined;
  for (const p of pieces) {
    if (p.section !== section) out.push('', sectionHeading(p.section), '');
    else if (p.table !== table) out.push('');
    section = p.section;
    table = p.table;
    out.push(p.sql);
  }
  return out.join('\n').trim();
}

/** current.sql when the committed migrations hold the model as it is. */
export const NOTHING_CHANGED = '-- Nothing changed since the committed migrations.\n';

/** The current.sql for a migrations folder: a delta against its committed migrations, else the whole script. */
export function scriptFor(model: Model, folder: string, opts: EmitOptions = {}): string {
  if (!hasCommitted(folder)) return emitMigration(model, opts);
  return modelDelta(model, committed(folder), true, opts).sql || NOTHING_CHANGED;
}
