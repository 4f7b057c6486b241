// Builds the IR from a validated model: one table per entity, per manyToMany relation (join) and
// per oneToOne relation (sub-resource), each with its columns, constraints and indexes.
import type { Entity, Model, Property } from '../model/types.ts';
import { keyColumnName, primaryKeyOf, relationTableName, tableName } from '../model/names.ts';
import { ident, pgName, qname, textArray } from '../sql/ident.ts';
import { SYSTEM_COLUMNS, SHORT_STRING_TYPE, baseType, propertyColumn } from './columns.ts';
import { orgScoped, propertyConstraints, propertyIndexes } from './rules.ts';
import type { ColumnIR, ConstraintIR, IndexIR, SchemaIR, TableIR } from './types.ts';
import { edgeOf, moduleFlag } from '../modules/index.ts';
import type { EdgeProperty } from '../modules/def.ts';
import { emailProperties } from '../modules/email.ts';

export function buildSchema(model: Model): SchemaIR {
  const tables: TableIR[] = [];
  for (const [name, entity] of Object.entries(model.entities)) {
    tables.push(entityTable(model, name, entity));
    for (const [rel, r] of Object.entries(entity.relations ?? {})) {
      tables.push(r.kind === 'manyToMany'
        ? joinTable(model, name, entity, rel, r.entity, edgeOf(r))
        : subresourceTable(model, name, entity, rel, r.properties));
    }
  }
  return { tables };
}

/** Columns, constraints and indexes for a set of model properties on `table`. */
function propertyParts(model: Model, table: string, props: Record<string, Property>, lookups: Set<string>, globalUnique = new Set<string>()) {
  const columns: ColumnIR[] = [];
  const constraints: ConstraintIR[] = [];
  const indexes: IndexIR[] = [];
  for (const [name, p] of Object.entries(props)) {
    columns.push(propertyColumn(model, name, p));
    constraints.push(...propertyConstraints(model, table, name, p, globalUnique.has(name)));
    indexes.push(...propertyIndexes(table, name, p, lookups.has(name)));
  }
  const hiddenColumns = Object.entries(props).filter(([, p]) => moduleFlag(p, 'hidden')).map(([n]) => n);
  return { columns, constraints, indexes, hiddenColumns };
}

function entityTable(model: Model, name: string, entity: Entity): TableIR {
  const table = tableName(entity);
  const [pk] = primaryKeyOf(entity);
  // Keys that nested paths and access policies look rows up by.
  const lookups = new Set<string>(Object.entries(entity.properties)
    .filter(([, p]) => p.references || moduleFlag(p, 'lookup')).map(([n]) => n));
  if (entity.parent) lookups.add(entity.parent.property);
  // The sign-in entity's people are one across organizations: its login email and its key (the token's sub,
  // looked up by sign-in and refresh) stay unique in the whole database, whatever the strategy; its other
  // unique values are its organization's, like any entity's.
  const people = model.api.identity?.entity === name && model.api.strategy !== 'RBAC';
  const login = new Set(people ? emailProperties(entity) : []);
  const parts = propertyParts(model, table, entity.properties, lookups, login);
  const columns = [...parts.columns, ...SYSTEM_COLUMNS];
  if (model.api.strategy !== 'RBAC') {
    columns.push({ name: 'organization_id', sqlType: SHORT_STRING_TYPE, notNull: true, identity: false,
      comment: `${model.api.strategy}: the organization the row belongs to, from the org claim of its creator.` });
    parts.indexes.push({ name: pgName(table, 'organization_id', 'idx'), property: 'organization_id', rule: 'organization', method: 'btree', expr: '("organization_id")' });
  }
  if (entity.softDelete) {
    columns.push({ name: 'deleted_at', sqlType: 'timestamp with time zone', notNull: false, identity: false,
      comment: 'Set when the record is soft-deleted; restore clears it.' });
  }
  const primary: ConstraintIR = { name: pgName(table, 'pkey'), property: pk, rule: 'primary', kind: 'primary', def: `PRIMARY KEY (${orgScoped(model, ident(pk))})` };
  const person: ConstraintIR[] = people ? [{ name: pgName(table, pk, 'key'), property: pk, rule: 'unique', kind: 'unique', def: `UNIQUE (${ident(pk)})` }] : [];
  return {
    name: table, kind: 'entity', entityName: name, entity,
    comment: entity.description ?? `Entity ${name} (collection ${entity.collection}).`,
    columns, constraints: [primary, ...person, ...parts.constraints], indexes: parts.indexes, hiddenColumns: parts.hiddenColumns,
  };
}

/** Key column pointing at an entity: <entity>_<pk>, typed like that key. */
function keyColumn(entityName: string, entity: Entity, prefix = ''): { col: ColumnIR; pk: string } {
  const [pk, p] = primaryKeyOf(entity);
  return { pk, col: { name: keyColumnName(entityName, pk, prefix), sqlType: baseType(p), notNull: true, identity: false } };
}

function foreignKey(model: Model, table: string, col: string, target: Entity, targetCol: string): ConstraintIR {
  return {
    name: pgName(table, col, 'fkey'), property: col, rule: 'references', kind: 'foreign',
    def: `FOREIGN KEY (${orgScoped(model, ident(col))}) REFERENCES ${qname('app', tableName(target))} (${orgScoped(model, ident(targetCol))}) ON DELETE CASCADE`,
  };
}

/**
 * A join or sub-resource row's organization_id under the organization strategies: its owner's, which the
 * keys and references lead with (orgScoped). A new row takes the caller's (the owner is in it); rows of a
 * table made before it had the column take their owner's when the migration adds it.
 */
function ownedOrganization(model: Model, owner: Entity, ownerColumn: string, ownerKey: string): ColumnIR[] {
  if (model.api.strategy === 'RBAC') return [];
  return [{ name: 'organization_id', sqlType: SHORT_STRING_TYPE, notNull: true, identity: false, defaultSql: 'auth.org()',
    comment: `${model.api.strategy}: the organization of the owning record.`, ownerOrganization: { table: tableName(owner), key: ownerKey, column: ownerColumn } }];
}

function joinTable(model: Model, name: string, entity: Entity, rel: string, targetName: string,
  edge: Record<string, EdgeProperty>): TableIR {
  const table = relationTableName(entity, rel);
  const target = model.entities[targetName]!;
  const source = keyColumn(name, entity);
  // The target's column is told apart when it would have the owner's name: a relation to the same entity, or
  // `FooBar.id` and `Foo.bar_id`, both `foo_bar_id`.
  const plain = keyColumn(targetName, target);
  const other = targetName === name || plain.col.name === source.col.name ? keyColumn(targetName, target, 'related_') : plain;
  const columns: ColumnIR[] = [source.col, other.col, ...ownedOrganization(model, entity, source.col.name, source.pk)];
  const constraints: ConstraintIR[] = [
    { name: pgName(table, 'pkey'), property: rel, rule: 'primary', kind: 'primary', def: `PRIMARY KEY (${orgScoped(model, `${ident(source.col.name)}, ${ident(other.col.name)}`)})` },
    foreignKey(model, table, source.col.name, entity, source.pk),
    foreignKey(model, table, other.col.name, target, other.pk),
  ];
  for (const [edgeName, spec] of Object.entries(edge)) {
    columns.push({ name: edgeName, sqlType: SHORT_STRING_TYPE, notNull: false, identity: false,
      comment: spec.displayName ? `Edge property: ${spec.displayName}` : 'Edge property' });
    if (spec.enum) {
      constraints.push({ name: pgName(table, edgeName, 'enum'), property: edgeName, rule: 'enum', kind: 'check',
        def: `CHECK (${ident(edgeName)}::text = ANY (${textArray(spec.enum)}))` });
    }
  }
  columns.push(...SYSTEM_COLUMNS);
  const indexes: IndexIR[] = [{ name: pgName(table, other.col.name, 'idx'), property: other.col.name, rule: 'indexed', method: 'btree', expr: `(${ident(other.col.name)})` }];
  return {
    name: table, kind: 'join', entityName: name, entity,
    comment: `manyToMany ${name}.${rel} -> ${targetName}.`, columns, constraints, indexes, hiddenColumns: [],
    relation: { name: rel, ownerColumn: source.col.name, target: targetName, targetColumn: other.col.name,
      edge: Object.keys(edge) },
  };
}

function subresourceTable(model: Model, name: string, entity: Entity, rel: string, props: Record<string, Property>): TableIR {
  const table = relationTableName(entity, rel);
  const owner = keyColumn(name, entity);
  const parts = propertyParts(model, table, props, new Set());
  return {
    name: table, kind: 'subresource', entityName: name, entity,
    comment: `oneToOne sub-resource ${name}.${rel}.`,
    columns: [owner.col, ...parts.columns, ...SYSTEM_COLUMNS, ...ownedOrganization(model, entity, owner.col.name, owner.pk)],
    constraints: [
      { name: pgName(table, 'pkey'), property: owner.col.name, rule: 'primary', kind: 'primary', def: `PRIMARY KEY (${orgScoped(model, ident(owner.col.name))})` },
      foreignKey(model, table, owner.col.name, entity, owner.pk),
      ...parts.constraints,
    ],
    indexes: parts.indexes,
    hiddenColumns: parts.hiddenColumns,
    relation: { name: rel, ownerColumn: owner.col.name },
  };
}
