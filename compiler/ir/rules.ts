// Constraints and indexes of one property (spec 2.1, 2.3, 2.5): named <table>_<property>_<rule>
// so a violation names its property, and `\d+` in psql reads like the model.
import type { Model, Property } from '../model/types.ts';
import { ident, literal, pgName, qname, textArray } from '../sql/ident.ts';
import { jsonPathExpr } from '../sql/json-path.ts';
import { baseType } from './columns.ts';
import { primaryKeyOf, tableName } from '../model/names.ts';
import { pathIsArray } from '../model/checks/json-paths.ts';
import type { ConstraintIR, IndexIR } from './types.ts';
import { modulesOf } from '../modules/index.ts';

/** `global`: a unique value is unique across organizations (the sign-in entity's login email: one email, one person). */
export function propertyConstraints(model: Model, table: string, name: string, p: Property, global = false): ConstraintIR[] {
  const col = ident(name);
  const out: ConstraintIR[] = [];
  const check = (rule: string, expr: string, suffix = rule) =>
    out.push({ name: pgName(table, name, suffix), property: name, rule, kind: 'check', def: `CHECK (${expr})` });
  const type = baseType(p);
  const bound = (v: number | string) => (typeof v === 'number' ? String(v) : `${literal(v)}::${type}`);

  if (p.minimum !== undefined) {
    const op = p.exclusiveMinimum ? '>' : '>=';
    const rule = p.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum';
    check(rule, p.multiple ? `${bound(p.minimum)} ${flip(op)} ALL (${col})` : `${col} ${op} ${bound(p.minimum)}`, 'minimum');
  }
  if (p.maximum !== undefined) {
    const op = p.exclusiveMaximum ? '<' : '<=';
    const rule = p.exclusiveMaximum ? 'exclusiveMaximum' : 'maximum';
    check(rule, p.multiple ? `${bound(p.maximum)} ${flip(op)} ALL (${col})` : `${col} ${op} ${bound(p.maximum)}`, 'maximum');
  }
  if (p.multipleOf !== undefined) {
    const m = `${p.multipleOf}::numeric`;
    check('multipleOf', p.multiple ? `lib.all_multiple_of(${col}::numeric[], ${m})` : `(${col}::numeric % ${m}) = 0`, 'multiple_of');
  }
  if (p.enum) {
    check('enum', p.multiple ? `${col}::text[] <@ ${textArray(p.enum)}` : `${col}::text = ANY (${textArray(p.enum)})`);
  }
  if (p.pattern !== undefined) {
    check('pattern', p.multiple ? `lib.all_match(${col}::text[], ${literal(p.pattern)})` : `${col} ~ ${literal(p.pattern)}`);
  }
  // The property's modules: their checks (email, password, file, …) and unique values.
  for (const { def, options } of modulesOf(p)) {
    def.constraints?.({
      table, name, col, p, options,
      check: (rule, expr, suffix = rule, hint) => out.push({ name: pgName(table, name, suffix), property: name, rule, kind: 'check', def: `CHECK (${expr})`, ...(hint ? { hint } : {}) }),
      unique: () => p.unique || out.push({ name: pgName(table, name, 'key'), property: name, rule: 'unique', kind: 'unique', def: `UNIQUE (${global ? col : orgScoped(model, col)})` }),
    });
  }
  // Under the organization strategies keys and unique values are the organization's own (orgScoped).
  if (p.unique) out.push({ name: pgName(table, name, 'key'), property: name, rule: 'unique', kind: 'unique', def: `UNIQUE (${global ? col : orgScoped(model, col)})` });
  // A global value that references may still point at within their organization (composite foreign keys).
  if (p.unique && global && model.api.strategy !== 'RBAC') {
    out.push({ name: pgName(table, name, 'org_key'), property: name, rule: 'unique', kind: 'unique', def: `UNIQUE (${orgScoped(model, col)})` });
  }
  if (p.references) {
    const [entityName, propName] = p.references.split('.');
    const target = model.entities[entityName!]!;
    const targetCol = propName ?? primaryKeyOf(target)[0];
    out.push({
      name: pgName(table, name, 'fkey'), property: name, rule: 'references', kind: 'foreign',
      def: `FOREIGN KEY (${orgScoped(model, col)}) REFERENCES ${qname('app', tableName(target))} (${orgScoped(model, ident(targetCol))}) ON DELETE RESTRICT`,
    });
  }
  return out;
}

/**
 * The columns of a key, a unique value or a reference: under OrganizationRBAC and EnterpriseRBAC led by
 * organization_id, so two organizations may both hold INV-0001 (or a customer with one email), and a taken
 * value in another organization is no 409 that tells it exists; a reference stays inside its organization.
 */
export function orgScoped(model: Model, columns: string): string {
  return model.api.strategy === 'RBAC' ? columns : `organization_id, ${columns}`;
}

function flip(op: string): string {
  return ({ '>': '<', '>=': '<=', '<': '>', '<=': '>=' } as Record<string, string>)[op]!;
}

/** Indexes a property asks for; `needsLookup` adds a B-tree for keys the policies and joins use. */
export function propertyIndexes(table: string, name: string, p: Property, needsLookup: boolean): IndexIR[] {
  const col = ident(name);
  const out: IndexIR[] = [];
  const add = (suffix: string, rule: string, method: IndexIR['method'], expr: string) =>
    out.push({ name: pgName(table, name, suffix), property: name, rule, method, expr });
  if (p.indexed || (needsLookup && !p.unique && !p.primary)) {
    if (p.multiple) add('gin', 'indexed', 'gin', `(${col})`);
    else add('idx', 'indexed', 'btree', `(${col})`);
  }
  if (p.searchIndexed) add('fts', 'searchIndexed', 'gin', `(to_tsvector('simple'::regconfig, (${col})::text))`);
  if (p.type === 'JSON' && p.index) {
    if (p.index.whole) add('gin', 'index.whole', 'gin', `(${col})`);
    for (const entry of p.index.paths ?? []) {
      const suffix = `${entry.path.replace(/\./g, '_')}_idx`;
      // An array is indexed whole with GIN (containment); scalars get a B-tree on the cast value.
      const method = entry.type ?? (pathIsArray(p, entry.path) ? 'gin' : 'btree');
      const expr = method === 'gin' ? jsonPathExpr(col, entry.path, 'json') : jsonPathExpr(col, entry.path, entry.cast ?? 'Text');
      add(suffix, `index.paths ${entry.path}`, method, `(${expr})`);
    }
  }
  return out;
}
