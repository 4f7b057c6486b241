// The JSON documents a script stores (lib.fields, lib.manifest_resources, lib.manifest): in a delta, a changed
// document is written as an RFC 7396 merge patch of the committed one, so a review shows what changed in it.
import { splitStatements } from './statements.ts';
import { json } from '../sql/layout.ts';

/** A string literal, or literals on lines of their own that SQL joins into one (wrapLong splits a long one so). */
const TEXT = String.raw`'(?:[^']|'')*'(?:\s*\n\s*'(?:[^']|'')*')*`;
/** The text of such a literal. */
const textOf = (literal: string) => [...literal.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'")).join('');

/** `INSERT INTO lib.<table> (<key>, <doc>) VALUES (<key value>, '<json>'::jsonb) ON CONFLICT … ;` */
const INSERT = new RegExp(String.raw`^INSERT INTO lib\.(\w+) \((\w+), (\w+)\) VALUES \(\s*('(?:[^']|'')*'|true),\s*(${TEXT})::jsonb\)\s*`
  + String.raw`ON CONFLICT \(\w+\) DO UPDATE SET \w+ = EXCLUDED\.\w+;$`, 's');
/** What a delta writes instead: `UPDATE lib.<table> SET <doc> = lib.merge_patch(<doc>, '<patch>'::jsonb) WHERE <key> = …;` */
const UPDATE = new RegExp(String.raw`^UPDATE lib\.(\w+) SET (\w+) = lib\.merge_patch\(\2,\s*(${TEXT})::jsonb\)\s*WHERE (\w+) = ('(?:[^']|'')*'|true);$`, 's');

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const isObject = (v: Json | undefined): v is { [k: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The document a statement stores or patches, named `<table> <key value>`. */
export function documentOf(sql: string): { name: string; doc?: Json; patch?: Json; table: string; keyColumn: string; docColumn: string; key: string } | undefined {
  const body = sql.replace(/^(\s*--[^\n]*\n)*\s*/, '');
  const i = INSERT.exec(body);
  if (i) return { name: `${i[1]} ${i[4]}`, table: i[1]!, keyColumn: i[2]!, docColumn: i[3]!, key: i[4]!, doc: JSON.parse(textOf(i[5]!)) };
  const u = UPDATE.exec(body);
  if (u) return { name: `${u[1]} ${u[5]}`, table: u[1]!, keyColumn: u[4]!, docColumn: u[2]!, key: u[5]!, patch: JSON.parse(textOf(u[3]!)) };
  return undefined;
}

/** RFC 7396: objects merge member by member, null removes one, anything else replaces. */
function applyPatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: { [k: string]: Json } = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyPatch(out[k], v);
  }
  return out;
}

/** The merge patch from `a` to `b` (which differ); undefined when none can say it (b holds a null, which a patch removes). */
function diff(a: Json, b: Json): Json | undefined {
  if (!isObject(a) || !isObject(b)) return hasNull(b) ? undefined : b;
  const patch: { [k: string]: Json } = {};
  for (const k of Object.keys(a)) if (!(k in b)) patch[k] = null;
  for (const [k, v] of Object.entries(b)) {
    if (k in a && JSON.stringify(a[k]) === JSON.stringify(v)) continue;
    const d = k in a ? diff(a[k]!, v) : hasNull(v) ? undefined : v;
    if (d === undefined) return undefined;
    patch[k] = d;
  }
  return patch;
}
const hasNull = (v: Json): boolean => v === null || (typeof v === 'object' && Object.values(v).some(hasNull));

/** Stored documents by name (`<table> <key value>`). */
export type Documents = Map<string, Json>;

/** The documents the committed scripts leave, by name, each script's inserts and patches applied in order. */
export function committedDocuments(scripts: string[]): Map<string, Json> {
  const docs = new Map<string, Json>();
  for (const script of scripts) {
    for (const sql of splitStatements(script)) {
      const d = documentOf(sql);
      if (d?.doc !== undefined) docs.set(d.name, d.doc);
      else if (d?.patch !== undefined && docs.has(d.name)) docs.set(d.name, applyPatch(docs.get(d.name), d.patch));
    }
  }
  return docs;
}

/** The statement as a patch of the committed document it replaces, when there is one and a patch can say it. */
export function asPatch(sql: string, committed: Map<string, Json>): string | undefined {
  const d = documentOf(sql);
  if (d?.doc === undefined || !committed.has(d.name)) return undefined;
  const patch = diff(committed.get(d.name)!, d.doc);
  if (patch === undefined) return undefined;
  return `UPDATE lib.${d.table} SET ${d.docColumn} = lib.merge_patch(${d.docColumn}, ${quote(json(patch))}::jsonb) `
    + `WHERE ${d.keyColumn} = ${d.key};`;
}

