// A model's domain and schema errors, or none: for the module tests' model checks.
import { compileModel, ModelValidationError, type ModelError } from '../../compiler/index.ts';

export function errorsOf(model: unknown): ModelError[] {
  try {
    compileModel(model);
  } catch (err) {
    if (err instanceof ModelValidationError) return err.errors;
    throw err;
  }
  return [];
}
