// ResourceIR: one resolved description of an entity as the API serves it (key, wire names, relations, embeds,
// function names, version, parent, constraints), built once; the manifest, lib.fields and the engine's shapes read it.
import type { Entity, JsonCast, Property, PropertyType } from '../model/types.ts';
import type { FileModuleName } from '../modules/index.ts';
import type { EdgeProperty } from '../modules/def.ts';
import type { TableIR } from '../ir/types.ts';
import type { PropertyManifest } from '../manifest/types.ts';

/** The boolean facts of a property as the API sees them (the manifest writes the true ones). */
export interface PropertyFlags {
  multiple: boolean;
  required: boolean;
  primary: boolean;
  readOnly: boolean;
  immutable: boolean;
  /** Never returned: writeOnly, or a module that hides the column (Password). */
  writeOnly: boolean;
  searchIndexed: boolean;
  /** web.hidden: left out of the generated specifications' responses, still returned. */
  hidden: boolean;
}

/** The docs-only facts of a property, and its number format. */
export type DocsFacts = Pick<PropertyManifest, 'serverSet' | 'description' | 'deprecated' | 'format' | 'defaultValue'>;

export interface PropertyIR {
  /** The name on the wire (web.name, else the model's). */
  wire: string;
  /** The column (the model's name). */
  column: string;
  /** The column's SQL type as format_type() prints it. */
  sqlType: string;
  type: PropertyType;
  flags: PropertyFlags;
  enum?: string[];
  file?: { module: FileModuleName; maxSizeInBytes?: number; allowedMimeTypes?: string[]; fileTypes?: string[] };
  /** JSON properties: Tier B casts by dot path. */
  casts?: Record<string, JsonCast>;
  docs: DocsFacts;
  /** The model's property, for the body and read schemas. */
  model: Property;
}

/** Properties by wire name, in the model's order. */
export type PropertiesIR = Record<string, PropertyIR>;

export interface KeyIR {
  wire: string;
  column: string;
  /** The key column's SQL type. */
  type: string;
  model: Property;
}

export type ResourceRelationIR =
  | {
      kind: 'manyToMany'; name: string; target: string; table: string;
      functions: { list: string; link: string; unlink: string };
      /** Key columns of the join: the owner's and the target's. */
      ownerColumn: string; targetColumn: string;
      /** Active edge properties with their allowed values and display names. */
      edge: Record<string, EdgeProperty>;
    }
  | {
      kind: 'oneToOne'; name: string; table: string;
      functions: { read: string; replace: string };
      /** The sub-resource's key column: the owner's key. */
      ownerColumn: string;
      properties: PropertiesIR;
    };

/** An embed (compiler/query/embeds.ts) with its reference resolved: the property's wire name and column. */
export type EmbedIR =
  | { name: string; kind: 'reference'; target: string; property: string; column: string }
  | { name: string; kind: 'manyToMany'; target: string; relation: string }
  | { name: string; kind: 'oneToOne'; relation: string };

export interface ResourceFunctions {
  list: string; search: string; read: string; create: string; replace: string; patch: string;
  delete: string; restore?: string; stream: string; history?: string;
}

export interface ResourceIR {
  entity: string;
  collection: string;
  table: string;
  description?: string;
  key: KeyIR;
  properties: PropertiesIR;
  relations: Record<string, ResourceRelationIR>;
  embeds: EmbedIR[];
  functions: ResourceFunctions;
  /** The Version property (the ETag is its value). */
  version?: { wire: string; column: string };
  /** A nested entity's parent: its entity and table, and the property holding its key here. */
  parent?: { entity: string; table: string; wire: string; column: string; type: string };
  softDelete: boolean;
  history: boolean;
  /** Managed constraint name -> the property (wire name) and rule it enforces, over the entity's own tables. */
  constraints: Record<string, { property: string; rule: string }>;
  /** The model's entity and the IR tables it owns (its own first, then its relations'). */
  model: Entity;
  tables: TableIR[];
}
