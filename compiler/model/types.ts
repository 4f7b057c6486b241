// TypeScript shape of a model file, mirroring compiler/model.schema.json.
// The schema is the source of truth for what is accepted; these types describe what passed it.
import type { Modules } from '../modules/index.ts';
import type { Rule } from '../access/rules/index.ts';

export type PropertyType =
  | 'String' | 'Number' | 'Boolean' | 'Date' | 'Time' | 'DateTime' | 'Binary' | 'JSON';

export type Strategy = 'RBAC' | 'OrganizationRBAC' | 'EnterpriseRBAC';

export type ActionName =
  | 'list' | 'search' | 'read' | 'create' | 'update' | 'delete' | 'restore' | 'link' | 'unlink';

export const ACTION_NAMES: readonly ActionName[] =
  ['list', 'search', 'read', 'create', 'update', 'delete', 'restore', 'link', 'unlink'];

export interface Model {
  api: Api;
  entities: Record<string, Entity>;
}

export interface Api {
  slug: string;
  version: string;
  title: string;
  description?: string;
  docsUrl: string;
  strategy: Strategy;
  projects?: { entity: string; members: string };
  identity?: Identity;
  scenarios?: Scenario[];
  webhooks?: Webhook[];
}

/** The actions the change log records (lib.changes.action), which a webhook may choose among. */
export type ChangeAction = 'created' | 'updated' | 'deleted' | 'restored' | 'linked' | 'unlinked';

export const CHANGE_ACTIONS: readonly ChangeAction[] = ['created', 'updated', 'deleted', 'restored', 'linked', 'unlinked'];

/** A receiver of changes (design 9): one signed POST per change of `entities` (all when absent) and `actions`. */
export interface Webhook {
  /** [a-z][a-z0-9_]*: its secret is WEBHOOK_<NAME>_SECRET. */
  name: string;
  /** The address, `${VARIABLE}` parts read from the gateway's environment at start. */
  url: string;
  entities?: string[];
  actions?: ChangeAction[];
}

/** The entity that holds users (POST /auth/token): its Email property is the login, its Password the secret. */
export interface Identity {
  entity: string;
  /** A multiple String property, or a manyToMany relation whose linked keys are the roles claim. */
  roles?: string;
  /** A String property: the org claim. */
  org?: string;
  /** A multiple String property: the org_roles claim. */
  orgRoles?: string;
}

export interface Entity {
  collection: string;
  description?: string;
  parent?: { entity: string; property: string };
  softDelete?: boolean;
  /** Record history (compiler/model/history.ts): on by default with a Version property; false, or bounded in days. */
  history?: boolean | { keepDays: number };
  properties: Record<string, Property>;
  relations?: Record<string, Relation>;
  scenarios?: Scenario[];
  actions?: Partial<Record<ActionName, ActionSettings>>;
  /** The entity's earlier name, or name and collection (compiler/model/renames.ts): its tables are renamed. */
  renamedFrom?: string | { entity?: string; collection?: string };
}

export interface ActionSettings {
  overrideParentScenarios?: boolean;
  scenarios?: Scenario[];
}

export type Scalar = string | number | boolean;

export interface Property {
  type: PropertyType;
  description?: string;
  required?: boolean;
  multiple?: boolean;
  long?: boolean;
  primary?: boolean;
  unique?: boolean;
  indexed?: boolean;
  searchIndexed?: boolean;
  readOnly?: boolean;
  immutable?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  references?: string;
  minimum?: number | string;
  maximum?: number | string;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  enum?: string[];
  pattern?: string;
  defaultValue?: unknown;
  schema?: Record<string, unknown>;
  index?: JsonIndex;
  modules?: Modules;
  web?: WebBinding;
  /** The property's earlier name (compiler/model/renames.ts): its column is renamed, its values kept. */
  renamedFrom?: string;
}

export interface WebBinding {
  format?: 'int32' | 'int64' | 'float' | 'double';
  name?: string;
  fileTypes?: string[];
  hidden?: boolean;
}

export type JsonCast = 'Text' | 'Integer' | 'Decimal' | 'Boolean';
export type JsonIndexType = 'btree' | 'hash' | 'gin';

export interface JsonIndex {
  /** Tier A: one GIN index over the whole document. */
  whole?: boolean;
  /** Tier B: expression indexes on dot paths. */
  paths?: Array<{ path: string; cast?: JsonCast; type?: JsonIndexType }>;
}

/** A property's `modules`, typed from the registry (compiler/modules/index.ts). */
export type { Modules, ModuleName } from '../modules/index.ts';
import type { RelationModules } from '../modules/index.ts';
export type { FileOptions as FileModule } from '../modules/file.ts';

export type { EdgeProperty } from '../modules/def.ts';

export type Relation =
  | { kind: 'oneToOne'; description?: string; properties: Record<string, Property> }
  | {
      kind: 'manyToMany';
      entity: string;
      description?: string;
      modules?: RelationModules;
    };

export interface Scenario {
  label: string;
  description?: string;
  predicate: PredicateGroup;
}

export interface PredicateGroup {
  style: 'and' | 'or';
  children: Array<PredicateGroup | Rule>;
}

/** A rule and its type, from the rule registry (compiler/access/rules/index.ts). */
export type { Rule, RuleType } from '../access/rules/index.ts';

export function isGroup(node: PredicateGroup | Rule): node is PredicateGroup {
  return 'style' in node;
}
