// What an access rule type is: one object holding its model schema, its domain checks, its SQL and its
// description, so a rule type is one file in this folder plus one line in the registry (index.ts).
import type { Entity } from '../../model/types.ts';
import type { CheckContext } from '../../model/checks/context.ts';
import type { Mode, RuleContext } from '../rules.ts';

export type JsonSchema = Record<string, unknown>;

/** What a rule's domain check sees. */
export interface RuleCheck<R> {
  ctx: CheckContext;
  rule: R;
  at: string;
  level: 'api' | 'entity' | 'action';
  entityName: string;
  entity: Entity;
  /** ` (this api-level rule applies to X)` for an api-level rule, else empty: for messages. */
  onEntity: string;
  hasProp(name: string): boolean;
}

export interface RuleDef<R extends { type: string }> {
  /** identity: a condition on the caller alone (PRE_FETCH); data: a condition on the row. */
  kind: 'identity' | 'data';
  /** One line: what it grants (docs). */
  summary: string;
  /** Its branch of the model schema's rule `oneOf` (with `type: {const: <name>}`). */
  schema: JsonSchema;
  /** Judges mutable state: it must be paired with an identity rule in an enclosing `and`. */
  needsIdentity?: boolean;
  /** Domain checks JSON Schema cannot express. */
  check?(c: RuleCheck<R>): void;
  /** Its SQL: an identity rule's whatever the mode; a data rule's for 'row' and 'select' ('identity' never asks). */
  sql(rule: R, ctx: RuleContext, mode: Mode): string;
  /** How a 403 names it (default: its type). */
  describe?(rule: R): string;
}

/** Types a rule's shape (`defineRule<{ type: 'matchUserRole'; roles: string[] }>({...})`); the registry reads it back. */
export function defineRule<R extends { type: string }>(def: RuleDef<R>): RuleDef<R> {
  return def;
}

/** The rule shape of a definition. */
export type RuleOf<D> = D extends RuleDef<infer R> ? R : never;
