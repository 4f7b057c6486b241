// Public entry of the model compiler: model (file or object) in, validated model and SQL text out.
// Pure: it touches no database; the migration runner applies the SQL it returns.
import { readFileSync } from 'node:fs';
import { validateModel } from './model/validate.ts';
import { emitMigration } from './emit.ts';
import type { Model } from './model/types.ts';

export { ModelValidationError, type ModelError } from './model/errors.ts';
export type { Model } from './model/types.ts';

export interface Compiled {
  model: Model;
  sql: string;
}

/** Validates `input` (parsed JSON) and emits the idempotent migration script for it. */
export function compileModel(input: unknown): Compiled {
  const model = validateModel(input);
  return { model, sql: emitMigration(model) };
}

/** Reads a model file, validates it and emits its migration script. */
export function compileFile(path: string): Compiled {
  const text = readFileSync(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  return compileModel(parsed);
}
