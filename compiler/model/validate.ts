// Validates a parsed model file: first its structure (JSON Schema), then the domain rules.
// Returns the typed model or throws ModelValidationError listing every problem found.
import type { Model } from './types.ts';
import { ModelValidationError } from './errors.ts';
import { schemaErrors } from './schema-check.ts';
import { CheckContext } from './checks/context.ts';
import { checkEntities } from './checks/entities.ts';
import { checkScenarios } from './checks/scenarios.ts';

export function validateModel(input: unknown): Model {
  const structural = schemaErrors(input);
  if (structural.length) throw new ModelValidationError(structural);
  const ctx = new CheckContext(input as Model);
  checkEntities(ctx);
  checkScenarios(ctx);
  if (ctx.errors.length) throw new ModelValidationError(ctx.errors);
  return input as Model;
}
