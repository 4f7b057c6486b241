// The write-rules trigger of each table: spec 2.2 (readOnly, immutable, primary key) and the
// module behaviour of 2.4/2.6 enforced in SQL, so no client can bypass it by writing rows directly.
import type { TableIR } from '../ir/types.ts';
import { DEFINER, ident, literal, qname } from './ident.ts';
import { defaultValueSql, hasOrganization } from '../ir/columns.ts';
import { wireName } from '../model/names.ts';
import { fn, identityFirst } from './engine/refusals.ts';
import type { RoleNames } from './roles.ts';
import { clauses, hang, ifThen } from './layout.ts';
import { modulesOf } from '../modules/index.ts';

/** The Password module's limits (compiler/modules/password.ts), as the sign-in function reads them too. */
export { PASSWORD_COST, BCRYPT_HASH, PASSWORD_MAX_BYTES, PASSWORD_HASHES_PER_REQUEST } from '../modules/password.ts';

const refuse = (code: string, message: string, property: string, rule: string) =>
  `PERFORM lib.refuse(${literal(code)}, ${literal(message)}, ${literal(property)}, ${literal(rule)});`;

/** Where a reference (an entity, or `Entity.property`) points: its table and key column, and whether it soft-deletes. */
export type ResolveReference = (references: string) => { table: string; key: string; softDelete: boolean };

export function triggerDdl(t: TableIR, roles: RoleNames, resolve?: ResolveReference): string {
  const rules = fn(t.name, 'write_rules');
  // Messages say the property's wire name (web.name); the property argument stays the column's, which the
  // gateway maps to the wire like every errors[].property SQL reports.
  const props = t.columns.filter((c) => c.prop).map((c) => ({
    name: c.name, wire: wireName(c.name, c.prop!), col: ident(c.name), p: c.prop!, identity: c.identity, type: c.sqlType,
  }));
  const onInsert: string[] = [];
  const onUpdate: string[] = [];
  const always: string[] = [];

  for (const { name, wire, col, p, identity, type } of props) {
    const mods = modulesOf(p);
    // Spec 2.2: readOnly values are never supplied; identity columns are refused by PostgreSQL itself. A Version
    // is 1 on insert whatever was supplied, and its column default has filled it before this trigger runs.
    if (p.readOnly && !identity && !mods.some(({ def }) => def.column?.default !== undefined)) {
      onInsert.push(ifThen(`NEW.${col} IS NOT NULL`, [refuse('PT400', `readOnly property "${wire}" cannot be supplied`, name, 'readOnly')]));
      if (p.primary && p.type === 'String') onInsert.push(`NEW.${col} := gen_random_uuid()::text;`);
      else if (p.defaultValue !== undefined) onInsert.push(`NEW.${col} := ${defaultValueSql(p, type)};`);
    }
    if (!identity && (p.primary || p.immutable || p.readOnly)) {
      const rule = p.primary ? 'primary' : p.immutable ? 'immutable' : 'readOnly';
      const what = p.primary ? `primary key "${wire}"` : `${rule} property "${wire}"`;
      onUpdate.push(ifThen(`NEW.${col} IS DISTINCT FROM OLD.${col}`, [refuse('PT400', `${what} cannot be changed`, name, rule)]));
    }
    // The property's modules, in the registry's order (compiler/modules).
    for (const { def, options } of mods) {
      def.trigger?.({ name, wire, col, p, options, roles, softDelete: t.kind === 'entity' && Boolean(t.entity.softDelete), refuse, onInsert, onUpdate, always });
    }
  }
  if (hasOrganization(t)) {
    // Organization strategies: a row belongs to its creator's active organization, for good.
    onInsert.push(`NEW.organization_id := auth.org();`,
      ifThen('NEW.organization_id IS NULL', [refuse('PT403', 'an active organization (the org claim) is required to create records here', 'organization_id', 'organization')]));
    onUpdate.push(ifThen('NEW.organization_id IS DISTINCT FROM OLD.organization_id', [refuse('PT400', 'a record cannot move to another organization', 'organization_id', 'organization')]));
    // Foreign keys are checked past row-level security: a reference must stay inside the organization.
    for (const { name, wire, col, p } of props.filter((x) => x.p.references && resolve)) {
      const ref = resolve!(p.references!);
      always.push(`IF NEW.${col} IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.${col} IS DISTINCT FROM OLD.${col})`,
        `   AND NOT lib.row_exists(${literal(ref.table)}, ${literal(ref.key)}, NEW.${col}::text) THEN`,
        `  ${refuse('PT422', `"${wire}" does not reference a ${p.references!.split('.')[0]} of your organization`, name, 'references')}`, 'END IF;');
    }
  }
  always.push(...parentReadable(t, resolve));
  // Guards run before module assignments so a client's value is judged, not the server's.
  const insertBody = sortGuardsFirst(onInsert);
  const updateBody = sortGuardsFirst(onUpdate);
  const indent = (xs: string[], n: number) => xs.map((x) => hang(' '.repeat(n) + x)).join('\n');
  const softDelete = t.kind === 'entity' && t.entity.softDelete;
  const hashes = always.some((line) => line.includes('_hashes'));
  const body = [
    `CREATE OR REPLACE FUNCTION ${rules}() RETURNS trigger LANGUAGE plpgsql AS $fn$`,
    ...(softDelete || hashes ? ['DECLARE'] : []),
    ...(softDelete ? ["  soft_delete_only boolean := TG_OP = 'UPDATE' AND OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL",
      "    AND (to_jsonb(NEW) - 'deleted_at') = (to_jsonb(OLD) - 'deleted_at');"] : []),
    ...(hashes ? ['  _hashes integer;'] : []),
    'BEGIN',
    "  IF TG_OP = 'INSERT' THEN",
    insertBody.length ? indent(insertBody, 4) : '    NULL;',
    '  ELSE',
    updateBody.length ? indent(updateBody, 4) : '    NULL;',
    '  END IF;',
    ...(always.length ? [indent(always, 2)] : []),
    '  NEW._rev := gen_random_uuid();',
    '  NEW._modified_at := now();',
    '  RETURN NEW;',
    'END $fn$;',
    `COMMENT ON FUNCTION ${rules}() IS ${literal(`Write rules of app.${t.name}: readOnly/immutable guards, modules, revision token.`)};`,
    `CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON ${qname('app', t.name)} FOR EACH ROW EXECUTE FUNCTION ${rules}();`,
  ];
  return body.join('\n');
}

/**
 * A record's parent must be one the caller may read, as on its nested path (app.<parent>_require: 403 when
 * hidden), whichever path wrote it: its foreign key is checked past row-level security, so a flat create (or a
 * move) put a child under a parent the caller cannot see. A parent that does not exist is the foreign key's 422;
 * a soft-deleted one, which the foreign key still finds, is 422 too (its nested path is 404). A caller no scenario
 * lets read the parent's entity is refused first (401/403), before any parent is looked for.
 */
function parentReadable(t: TableIR, resolve?: ResolveReference): string[] {
  const parent = t.kind === 'entity' ? t.entity.parent : undefined;
  if (!parent || !resolve) return [];
  const ref = resolve(parent.entity), col = `NEW.${ident(parent.property)}`;
  const column = t.columns.find((c) => c.name === parent.property)!;
  // Only the caller's organization is searched (lib.row_exists): another organization's deleted parent stays a missing one.
  const deleted = ref.softDelete ? [
    `  ELSIF lib.row_exists(${literal(ref.table)}, ${literal(ref.key)}, ${col}::text) THEN`,
    `    ${refuse('PT422', `"${wireName(parent.property, column.prop!)}" refers to a deleted ${parent.entity}: restore it first`, parent.property, 'references')}`,
  ] : [];
  return [`IF ${col} IS NOT NULL AND (TG_OP = 'INSERT' OR ${col} IS DISTINCT FROM OLD.${ident(parent.property)}) THEN`,
    `  ${identityFirst(ref.table, parent.entity, "'read'")}`,
    `  IF ${fn(ref.table, 'exists')}(${col}::text) THEN`,
    `    PERFORM ${fn(ref.table, 'require')}(${col}::text, 'read');  -- the parent is readable`,
    ...deleted,
    '  END IF;',
    'END IF;'];
}

function sortGuardsFirst(lines: string[]): string[] {
  const guards = lines.filter((l) => l.startsWith('IF NEW.') && l.includes("'PT400'"));
  return [...guards, ...lines.filter((l) => !guards.includes(l))];
}

/** A sub-resource is part of its owner: any write to it gives the owner a new ETag (spec 4.3). */
export function touchOwnerDdl(t: TableIR, ownerTable: string, ownerKey: string): string {
  const touch = fn(t.name, 'touch_owner');
  const key = ident(t.relation!.ownerColumn);
  const row = (col: string) => `(CASE WHEN TG_OP = 'DELETE' THEN OLD.${col} ELSE NEW.${col} END)`;
  // Definer, past the policies: under the organization strategies the owner is the row's organization's.
  const org = hasOrganization(t) ? ` AND organization_id = ${row('organization_id')}` : '';
  return [
    `CREATE OR REPLACE FUNCTION ${touch}() RETURNS trigger LANGUAGE plpgsql ${DEFINER} AS $fn$`,
    'BEGIN',
    `  UPDATE ${qname('app', ownerTable)} SET _rev = gen_random_uuid() WHERE ${ident(ownerKey)} = ${row(key)}${org};`,
    '  RETURN NULL;',
    'END $fn$;',
    clauses(`CREATE OR REPLACE TRIGGER touch_owner AFTER INSERT OR UPDATE OR DELETE ON ${qname('app', t.name)}`, [`FOR EACH ROW EXECUTE FUNCTION ${touch}();`]),
  ].join('\n');
}
