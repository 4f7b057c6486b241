// Public entry of the model compiler: model (file or object) in, validated model and SQL text out.
// Pure: it touches no database; the migration runner applies the SQL it returns.
import { readFileSync } from 'node:fs';
import { validateModel } from './model/validate.ts';
import { emitMigration, type EmitOptions } from './emit.ts';
import { DEFAULT_ROLES, type RoleNames } from './sql/roles.ts';
import type { Model } from './model/types.ts';

export { ModelValidationError, type ModelError } from './model/errors.ts';
export type { Model } from './model/types.ts';
export type { EmitOptions } from './emit.ts';

export interface Compiled {
  model: Model;
  sql: string;
  /** The role names the script was compiled for (a delta of the same model needs them too). */
  roles: RoleNames;
}

/** Validates `input` (parsed JSON) and emits the idempotent migration script for it. */
export function compileModel(input: unknown, opts: EmitOptions = {}): Compiled {
  const model = validateModel(input);
  const roles = opts.roles ?? DEFAULT_ROLES;
  return { model, sql: emitMigration(model, { roles }), roles };
}

/** Reads a model file, validates it and emits its migration script. */
export function compileFile(path: string, opts: EmitOptions = {}): Compiled {
  const text = readFileSync(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  return compileModel(parsed, opts);
}
