// What a semantic module is: one object holding everything the compiler and the gateway do for it (its options'
// JSON Schema, model checks, column facts, constraints, write-rule trigger parts, wire shape), so a module is one
// file in this folder plus one line in the registry (index.ts). The extension points iterate the registry.
import type { Property } from '../model/types.ts';
import type { NumberFormat } from '../manifest/types.ts';
import type { RoleNames } from '../sql/roles.ts';

export type JsonSchema = Record<string, unknown>;

/** What a module's model check sees: the property, its options, its siblings, and how to report. */
export interface ModuleCheck<O> {
  /** The module's name (`FileURL`). */
  module: string;
  name: string;
  p: Property;
  options: O;
  /** The other properties of its entity (or relation), by model name. */
  siblings: Record<string, Property>;
  where: 'entity' | 'relation';
  /** Reports a domain error at the property (or `sub`, a path below it). */
  fail(rule: string, message: string, sub?: string): void;
}

/** What a module's constraints see; `check` and `unique` add a constraint named `<table>_<prop>_<suffix>`. */
export interface ModuleConstraints<O> {
  table: string;
  name: string;
  /** The quoted column. */
  col: string;
  p: Property;
  options: O;
  check(rule: string, expr: string, suffix?: string, hint?: string): void;
  /** A unique constraint `<table>_<prop>_key`, scoped to the organization like `unique: true`. */
  unique(): void;
}

/** What a module's part of the write-rules trigger (compiler/sql/triggers.ts) sees, and the lists it adds to. */
export interface ModuleTrigger<O> {
  name: string;
  wire: string;
  /** The quoted column. */
  col: string;
  p: Property;
  options: O;
  roles: RoleNames;
  softDelete: boolean;
  /** A `PERFORM lib.refuse(…)` statement. */
  refuse(code: string, message: string, property: string, rule: string): string;
  onInsert: string[];
  onUpdate: string[];
  /** Run on insert and update, after the branches. */
  always: string[];
}

export interface ModuleDef<O = Record<string, never>> {
  /** One line: what the module does (docs, errors). */
  summary: string;
  /** JSON Schema of the module's options: the model schema's `modules.<Name>`. */
  options: JsonSchema;
  /** The properties it applies to, else 'Semantic Data Alignment' says `<Name> needs <what>`. */
  appliesTo?: { ok(p: Property): boolean; what: string };
  /** Belongs on an entity, not a relation's property. */
  entityOnly?: boolean;
  /** At most one property of an entity carries it (rule `Single <Name>`). */
  onePerEntity?: boolean;
  /** The server owns the value: no two such modules share a property. */
  managed?: boolean;
  /** The value changes on every write: never a primary key. */
  changesOnEveryWrite?: boolean;
  /** The server gives a value on insert when none is supplied (a readOnly or required property needs no body value). */
  fills?: boolean;
  /** Only the server writes it (readOnly in the API documents unless `clientNames`). */
  serverManaged?: boolean;
  /** Server-managed, yet update bodies name it (a Version: the version the update expects). */
  clientNames?: boolean;
  /** A row always holds a value. */
  alwaysSet?: boolean;
  /** Never read back: request roles may write the column, not SELECT it (writeOnly on the wire). */
  hidden?: boolean;
  /** Rows are looked up by it (a B-tree index `<table>_<prop>_idx`). */
  lookup?: boolean;
  /** A stored file (spec 2.7): jsonb column, upload intents, signed links; `defaultTypes` when the model names none. */
  file?: { defaultTypes?: string[] };
  /** Domain checks JSON Schema cannot express. */
  check?(c: ModuleCheck<O>): void;
  /** Column facts. */
  column?: { type?(p: Property): string | undefined; default?: string; notNull?: boolean };
  /** Constraints beside the property's own (checks, unique). */
  constraints?(c: ModuleConstraints<O>): void;
  /** Its part of the table's write-rules trigger. */
  trigger?(c: ModuleTrigger<O>): void;
  /** Extra facts of the column in `lib.fields` (how a filter compares it). */
  field?: Record<string, unknown>;
  /** The wire shape (manifest, request bodies, OpenAPI/RAML). */
  wire?: {
    /** The number format when the model names none. */
    format?: NumberFormat;
    /** A value's schema in a body, from the type's own (`base`). */
    value?(base: JsonSchema, p: Property): JsonSchema;
    /** A returned value's schema, in place of the type's. */
    read?: JsonSchema;
    /** A body's member, in place of the property's schema. */
    body?(kind: 'create' | 'replace' | 'patch'): JsonSchema;
  };
}

/** An edge property of a manyToMany relation: its allowed values (absent: free text) and the name documents show. */
export interface EdgeProperty {
  enum?: string[];
  displayName?: string;
}

/**
 * A relation module: the model schema's `modules.<Name>` of a manyToMany relation, and the edge properties it gives
 * the relation (columns of the join table, members of a link's body and of each linked record's `edge`).
 */
export interface RelationModuleDef<O> {
  summary: string;
  options: JsonSchema;
  /** The edge properties the options name, by name. */
  edge(options: O): Record<string, EdgeProperty>;
}

/** Types a module's options (`defineModule<{ from: string }>({...})`); the registry reads them back. */
export function defineModule<O = Record<string, never>>(def: ModuleDef<O>): ModuleDef<O> {
  return def;
}

/** The options type of a module definition. */
export type OptionsOf<D> = D extends ModuleDef<infer O> ? O : never;

/** An option-less module's schema. */
export const NO_OPTIONS: JsonSchema = { type: 'object', additionalProperties: false, properties: {} };
