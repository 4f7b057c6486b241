// The registry of semantic modules: a property's `modules` in the model names them. The model schema's
// `modules`, the `Modules` type and every extension point (checks, columns, constraints, triggers, wire
// shapes) come from this table; a new module is its file and one line here.
// The order is the order in which a property's modules contribute to its write-rules trigger and constraints.
import type { Property } from '../model/types.ts';
import type { EdgeProperty, JsonSchema, ModuleDef, OptionsOf, RelationModuleDef } from './def.ts';
import { Version } from './version.ts';
import { Owner } from './owner.ts';
import { CreatedTimestamp } from './created-timestamp.ts';
import { UpdatedTimestamp } from './updated-timestamp.ts';
import { Status } from './status.ts';
import { Email } from './email.ts';
import { Password } from './password.ts';
import { FileURL } from './file-url.ts';
import { ImageURL } from './image-url.ts';
import { Slug } from './slug.ts';
import { Membership, type MembershipOptions } from './membership.ts';

export const MODULES = {
  Version,
  Owner,
  CreatedTimestamp,
  UpdatedTimestamp,
  Status,
  Email,
  Password,
  FileURL,
  ImageURL,
  Slug,
} satisfies Record<string, ModuleDef<any>>;

export type ModuleName = keyof typeof MODULES;

/** The modules of a manyToMany relation (its `modules` in the model). */
export const RELATION_MODULES = {
  Membership,
} satisfies Record<string, RelationModuleDef<any>>;

export type RelationModuleName = keyof typeof RELATION_MODULES;

/** A relation's `modules`: each module's options. */
export interface RelationModules {
  Membership?: MembershipOptions;
}

export const RELATION_MODULE_NAMES = Object.keys(RELATION_MODULES) as RelationModuleName[];

/** A property's `modules`: each module's options, typed from its definition. */
export type Modules = { [K in ModuleName]?: OptionsOf<(typeof MODULES)[K]> };

/** The modules a file module's name may be (`FileURL`, `ImageURL`). */
export type FileModuleName = { [K in ModuleName]: (typeof MODULES)[K] extends { file: object } ? K : never }[ModuleName];

export const MODULE_NAMES = Object.keys(MODULES) as ModuleName[];

/** The property's modules in registry order, with their definitions and options. */
export function modulesOf(p: Property): Array<{ module: ModuleName; def: ModuleDef<any>; options: any }> {
  const m = p.modules as Record<string, unknown> | undefined;
  if (!m) return [];
  return MODULE_NAMES.filter((k) => m[k]).map((module) => ({ module, def: MODULES[module] as ModuleDef<any>, options: m[module] }));
}

/** Whether one of the property's modules has the flag. */
export function moduleFlag(p: Property, flag: 'entityOnly' | 'onePerEntity' | 'managed' | 'changesOnEveryWrite' | 'fills' | 'serverManaged'
  | 'clientNames' | 'alwaysSet' | 'hidden' | 'lookup' | 'file'): boolean {
  return modulesOf(p).some(({ def }) => Boolean(def[flag]));
}

/** The property's file module (FileURL, ImageURL), if any. */
export function fileModuleOf(p: Property): FileModuleName | undefined {
  return modulesOf(p).find(({ def }) => def.file)?.module as FileModuleName | undefined;
}

/** The names of the modules with a flag (`file`: FileURL, ImageURL), for messages. */
export function modulesWith(flag: 'file' | 'entityOnly'): ModuleName[] {
  return MODULE_NAMES.filter((k) => (MODULES[k] as ModuleDef<unknown>)[flag]);
}

/** The model schema's `modules` object: one member per module, its options' schema. */
export function modulesSchema(): JsonSchema {
  return {
    type: 'object', additionalProperties: false,
    properties: Object.fromEntries(MODULE_NAMES.map((k) => [k, MODULES[k].options])),
  };
}

/** The model schema's `modules` object of a manyToMany relation: one member per relation module. */
export function relationModulesSchema(): JsonSchema {
  return {
    type: 'object', additionalProperties: false,
    properties: Object.fromEntries(RELATION_MODULE_NAMES.map((k) => [k, RELATION_MODULES[k].options])),
  };
}

/** A manyToMany relation's edge properties, from its modules (Membership), by name. */
export function edgeOf(relation: { modules?: RelationModules }): Record<string, EdgeProperty> {
  const m = (relation.modules ?? {}) as Record<string, unknown>;
  return Object.assign({}, ...RELATION_MODULE_NAMES.filter((k) => m[k]).map((k) => (RELATION_MODULES[k] as RelationModuleDef<any>).edge(m[k])));
}
