// The api.* functions, one per entity (or relation) and action, each a one-line call into the
// engine with its table's descriptor name; the descriptors and the manifest they serve.
import type { Model } from '../model/types.ts';
import type { ColumnIR, TableIR } from '../ir/types.ts';
import { serverManaged } from '../ir/columns.ts';
import { buildManifest } from '../manifest/build.ts';
import { literal, qname } from './ident.ts';
import { scenarioDescriptors } from './policies.ts';

type Descriptor = Record<string, unknown>;

function columnDescriptor(c: ColumnIR, primaryKey: string): Descriptor {
  const p = c.prop;
  if (!p) return { type: c.sqlType, kind: 'String', readable: true, read_only: false, managed: false, primary: c.name === primaryKey,
    immutable: false, multiple: false, json: false, search: false, has_default: c.defaultSql !== undefined };
  const casts = p.type === 'JSON' ? Object.fromEntries((p.index?.paths ?? []).filter((e) => e.cast).map((e) => [e.path, e.cast])) : {};
  return {
    type: c.sqlType, kind: p.type, multiple: Boolean(p.multiple), json: p.type === 'JSON',
    readable: !(p.writeOnly || p.modules?.Password), read_only: Boolean(p.readOnly), managed: serverManaged(p),
    primary: Boolean(p.primary), immutable: Boolean(p.immutable), search: Boolean(p.searchIndexed),
    has_default: c.defaultSql !== undefined || c.identity, casts,
  };
}

/** What the engine needs to know about a table (lib.resources). */
export function descriptor(model: Model, t: TableIR, all: TableIR[]): Descriptor {
  const entityTable = (entity: string) => all.find((x) => x.kind === 'entity' && x.entityName === entity)!;
  if (t.kind === 'join') {
    const r = t.relation!;
    return { kind: 'join', table: t.name, entity: `${t.entityName}.${r.name}`, edge: r.edge ?? [],
      source: { column: r.ownerColumn, resource: entityTable(t.entityName).name },
      target: { column: r.targetColumn, resource: entityTable(r.target!).name } };
  }
  const props = t.columns.filter((c) => c.prop || (t.kind === 'subresource' && c.name === t.relation!.ownerColumn));
  const pk = t.kind === 'subresource' ? t.relation!.ownerColumn : Object.entries(t.entity.properties).find(([, p]) => p.primary)![0];
  const columns = Object.fromEntries(props.map((c) => [c.name, columnDescriptor(c, pk)]));
  const parent = t.kind === 'entity' && t.entity.parent ? { column: t.entity.parent.property, resource: entityTable(t.entity.parent.entity).name } : null;
  return {
    kind: t.kind, table: t.name, entity: t.kind === 'entity' ? t.entityName : `${t.entityName}.${t.relation!.name}`,
    pk, pk_type: props.find((c) => c.name === pk)!.sqlType,
    soft_delete: t.kind === 'entity' && Boolean(t.entity.softDelete),
    version: Object.entries(t.entity.properties).find(([, p]) => p.modules?.Version && t.kind === 'entity')?.[0] ?? null,
    parent, owner: t.kind === 'subresource' ? entityTable(t.entityName).name : null,
    columns, output: props.filter((c) => (columns[c.name] as Descriptor).readable).map((c) => c.name),
    ...(t.kind === 'entity' ? { scenarios: scenarioDescriptors(model, t), org: t.columns.some((c) => c.name === 'organization_id') } : {}),
  };
}

/** [function suffix, access action of the owning entity, engine operation, what it does] for a table. */
function actions(t: TableIR): Array<[string, string, string, string]> {
  if (t.kind === 'join') {
    return [['list', 'read', 'linked', 'list linked records'], ['link', 'link', 'link', 'link a record'], ['unlink', 'unlink', 'unlink', 'unlink a record']];
  }
  if (t.kind === 'subresource') return [['read', 'read', 'sub_read', 'read the sub-resource'], ['replace', 'update', 'sub_replace', 'replace the sub-resource']];
  const list: Array<[string, string, string, string]> = [
    ['list', 'list', 'list', 'list'], ['search', 'search', 'list', 'search'], ['read', 'read', 'read', 'read one'],
    ['create', 'create', 'create', 'create'], ['replace', 'update', 'replace', 'replace (PUT)'],
    ['patch', 'update', 'patch', 'patch (PATCH)'], ['delete', 'delete', 'delete', 'delete'],
  ];
  if (t.entity.softDelete) list.push(['restore', 'restore', 'restore', 'restore']);
  return list;
}

export function functionNames(tables: TableIR[]): string[] {
  return tables.flatMap((t) => actions(t).map(([a]) => `${t.name}_${a}`));
}

export function functionsDdl(model: Model, tables: TableIR[]): string {
  const out: string[] = ['DELETE FROM lib.resources;'];
  for (const t of tables) {
    out.push(`INSERT INTO lib.resources (name, descriptor) VALUES (${literal(t.name)}, ${literal(JSON.stringify(descriptor(model, t, tables)))}::jsonb);`);
    const owner = tables.find((o) => o.kind === 'entity' && o.entityName === t.entityName)!.name;
    for (const [suffix, action, op, what] of actions(t)) {
      const fn = qname('api', `${t.name}_${suffix}`);
      const call = `lib.run(${[owner, action, op, t.name].map(literal).join(', ')}, args)`;
      out.push(`CREATE OR REPLACE FUNCTION ${fn}(args jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT ${call} $$;`,
        `COMMENT ON FUNCTION ${fn}(jsonb) IS ${literal(`${what}: ${t.kind === 'entity' ? t.entityName : `${t.entityName}.${t.relation!.name}`}`)};`);
    }
  }
  out.push(`INSERT INTO lib.manifest (singleton, manifest) VALUES (true, ${literal(JSON.stringify(buildManifest(model)))}::jsonb)`,
    '  ON CONFLICT (singleton) DO UPDATE SET manifest = EXCLUDED.manifest;',
    `SELECT meta.drop_stale_functions(ARRAY[${functionNames(tables).map(literal).join(', ')}]::text[]);`,
    'GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA api TO anon, authenticated;');
  return out.join('\n');
}
