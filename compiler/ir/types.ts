// The intermediate representation: the model resolved into tables, columns, constraints and
// indexes with their final names and SQL types. Every SQL emitter reads this, never the raw model.
import type { Entity, Property } from '../model/types.ts';

export interface ColumnIR {
  name: string;
  /** Canonical type text as PostgreSQL's format_type() prints it, so reconciling can compare. */
  sqlType: string;
  notNull: boolean;
  defaultSql?: string;
  identity: boolean;
  /** The model property behind the column; absent for system columns (_rev, deleted_at, keys of joins). */
  prop?: Property;
  comment?: string;
  /** A join or sub-resource row's organization_id: where existing rows find it when the column is added. */
  ownerOrganization?: { table: string; key: string; column: string };
}

/** Managed constraint or index: named after its property, with the rule it enforces. */
export interface RuleObject {
  name: string;
  property: string;
  rule: string;
}

export interface ConstraintIR extends RuleObject {
  /** The definition after ADD CONSTRAINT <name>, e.g. CHECK ((rating >= 0)). */
  def: string;
  kind: 'primary' | 'unique' | 'check' | 'foreign';
  /** What to do when existing rows break it, for the migration's refusal (default: fix them or relax the rule). */
  hint?: string;
}

export interface IndexIR extends RuleObject {
  method: 'btree' | 'gin' | 'hash';
  /** Indexed expression list, e.g. ("title") or ((meta #>> '{address,city}')). */
  expr: string;
}

export type TableKind = 'entity' | 'join' | 'subresource';

export interface TableIR {
  name: string;
  kind: TableKind;
  /** Entity the table belongs to (for joins and sub-resources: the owning entity). */
  entityName: string;
  entity: Entity;
  comment: string;
  columns: ColumnIR[];
  constraints: ConstraintIR[];
  indexes: IndexIR[];
  /** Columns request roles may not SELECT (Password). */
  hiddenColumns: string[];
  /** For join and sub-resource tables: the relation they store. */
  relation?: RelationIR;
}

export interface RelationIR {
  name: string;
  /** Key column pointing at the owning entity's row. */
  ownerColumn: string;
  /** manyToMany only: the linked entity, its key column here, and the edge property columns. */
  target?: string;
  targetColumn?: string;
  edge?: string[];
}

export interface SchemaIR {
  tables: TableIR[];
}
