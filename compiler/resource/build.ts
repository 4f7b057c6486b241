// Builds each entity's ResourceIR once from the IR tables: the one place that finds a key, resolves wire
// names, names the api.* functions and maps constraints; the manifest, lib.fields and shapes project it.
import type { Model, Property } from '../model/types.ts';
import { primaryKeyOf, wireName } from '../model/names.ts';
import { buildSchema } from '../ir/build.ts';
import type { TableIR } from '../ir/types.ts';
import { pgName } from '../sql/ident.ts';
import { acceptedFileTypes } from '../model/mime.ts';
import { historyOf } from '../model/history.ts';
import { edgeOf, fileModuleOf, moduleFlag } from '../modules/index.ts';
import { versionProperty } from '../modules/version.ts';
import { embedsOf } from '../query/embeds.ts';
import { docsFacts } from '../manifest/read.ts';
import type { EmbedIR, PropertiesIR, PropertyIR, ResourceIR, ResourceRelationIR } from './types.ts';

/** One ResourceIR per entity table, made on first use (the tables of one buildSchema call share them). */
const made = new WeakMap<TableIR, ResourceIR>();

/** Every entity's ResourceIR, by entity name, with the IR tables they come from. */
export function buildResources(model: Model, tables = buildSchema(model).tables): { tables: TableIR[]; resources: Record<string, ResourceIR> } {
  const resources = Object.fromEntries(tables.filter((t) => t.kind === 'entity').map((t) => [t.entityName, resourceOf(t, tables)]));
  return { tables, resources };
}

/** The ResourceIR of the entity that owns table `t` (an entity's, join or sub-resource table), among `all`. */
export function resourceOf(t: TableIR, all: TableIR[]): ResourceIR {
  const table = t.kind === 'entity' ? t : all.find((x) => x.kind === 'entity' && x.entityName === t.entityName)!;
  let r = made.get(table);
  if (!r) {
    r = build(table, all);
    made.set(table, r);
  }
  return r;
}

/** A property as the API sees it; `sqlType` is its column's. */
export function propertyIR(column: string, p: Property, sqlType: string): PropertyIR {
  const out: PropertyIR = {
    wire: wireName(column, p), column, sqlType, type: p.type,
    flags: {
      multiple: Boolean(p.multiple), required: Boolean(p.required), primary: Boolean(p.primary), readOnly: Boolean(p.readOnly),
      immutable: Boolean(p.immutable), writeOnly: Boolean(p.writeOnly) || moduleFlag(p, 'hidden'),
      searchIndexed: Boolean(p.searchIndexed), hidden: Boolean(p.web?.hidden),
    },
    docs: docsFacts(p),
    model: p,
  };
  if (p.enum) out.enum = p.enum;
  const file = fileModuleOf(p);
  if (file) {
    const fileTypes = acceptedFileTypes(p);
    out.file = { module: file, ...p.modules![file]!, ...(fileTypes ? { fileTypes } : {}) };
  }
  if (p.type === 'JSON' && p.index?.paths?.length) {
    out.casts = Object.fromEntries(p.index.paths.filter((e) => e.cast).map((e) => [e.path, e.cast!]));
  }
  return out;
}

/** The properties of `props` by wire name, typed by the columns of `t`. */
function propertiesOf(t: TableIR, props: Record<string, Property>): PropertiesIR {
  const sqlType = (name: string) => t.columns.find((c) => c.name === name)!.sqlType;
  return Object.fromEntries(Object.entries(props).map(([n, p]) => {
    const ir = propertyIR(n, p, sqlType(n));
    return [ir.wire, ir];
  }));
}

/** Column -> wire name of a set of properties (a column that is no property keeps its name). */
export const wireOfColumns = (props: PropertiesIR): Record<string, string> =>
  Object.fromEntries(Object.values(props).map((p) => [p.column, p.wire]));

function build(t: TableIR, all: TableIR[]): ResourceIR {
  const e = t.entity;
  const own = all.filter((x) => x.entityName === t.entityName);
  const properties = propertiesOf(t, e.properties);
  const byColumn = (column: string) => Object.values(properties).find((p) => p.column === column)!;
  const [keyColumn] = primaryKeyOf(e);
  const key = byColumn(keyColumn);
  const relations: Record<string, ResourceRelationIR> = {};
  for (const x of own.filter((o) => o.relation)) {
    const rel = x.relation!;
    const spec = e.relations![rel.name]!;
    relations[rel.name] = spec.kind === 'manyToMany'
      ? {
          kind: 'manyToMany', name: rel.name, target: spec.entity, table: x.name,
          functions: { list: pgName(x.name, 'list'), link: pgName(x.name, 'link'), unlink: pgName(x.name, 'unlink') },
          ownerColumn: rel.ownerColumn, targetColumn: rel.targetColumn!,
          edge: edgeOf(spec),
        }
      : {
          kind: 'oneToOne', name: rel.name, table: x.name,
          functions: { read: pgName(x.name, 'read'), replace: pgName(x.name, 'replace') },
          ownerColumn: rel.ownerColumn, properties: propertiesOf(x, spec.properties),
        };
  }
  const fn = (a: string) => pgName(t.name, a);
  const version = versionProperty(e);
  const parentTable = (entity: string) => all.find((x) => x.kind === 'entity' && x.entityName === entity)!.name;
  const embeds = embedsOf(t.entityName, e).map((x): EmbedIR => (x.kind === 'reference'
    ? { ...x, property: byColumn(x.property).wire, column: x.property } : x));
  return {
    entity: t.entityName, collection: e.collection, table: t.name,
    ...(e.description ? { description: e.description } : {}),
    key: { wire: key.wire, column: key.column, type: key.sqlType, model: key.model },
    properties, relations, embeds,
    functions: {
      list: fn('list'), search: fn('search'), read: fn('read'), create: fn('create'), replace: fn('replace'),
      patch: fn('patch'), delete: fn('delete'), ...(e.softDelete ? { restore: fn('restore') } : {}), stream: fn('stream'),
      ...(historyOf(e) ? { history: fn('history') } : {}),
    },
    ...(version ? { version: { wire: byColumn(version[0]).wire, column: version[0] } } : {}),
    ...(e.parent ? { parent: { entity: e.parent.entity, table: parentTable(e.parent.entity), column: e.parent.property,
      wire: byColumn(e.parent.property).wire, type: byColumn(e.parent.property).sqlType } } : {}),
    softDelete: Boolean(e.softDelete),
    history: Boolean(historyOf(e)),
    constraints: constraintMap(own, properties, relations),
    model: e,
    tables: own,
  };
}

/** Constraint name -> property (its wire name) and rule, for every managed constraint of the entity's tables. */
function constraintMap(own: TableIR[], properties: PropertiesIR, relations: Record<string, ResourceRelationIR>) {
  const wire = (t: TableIR, column: string) => {
    const rel = t.kind === 'subresource' ? relations[t.relation!.name] : undefined;
    const props = t.kind === 'entity' ? properties : rel?.kind === 'oneToOne' ? rel.properties : {};
    return wireOfColumns(props)[column] ?? column;
  };
  return Object.fromEntries(own.flatMap((t) => t.constraints.map((c) => [c.name, { property: wire(t, c.property), rule: c.rule }])));
}
