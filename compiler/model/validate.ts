// Validates a parsed model file: first its structure (JSON Schema), then the domain rules.
// Returns the typed model or throws ModelValidationError listing every problem found.
import type { Model } from './types.ts';
import { ModelValidationError } from './errors.ts';
import { schemaErrors } from './schema-check.ts';
import { CheckContext } from './checks/context.ts';
import { checkEntities } from './checks/entities.ts';
import { checkScenarios } from './checks/scenarios.ts';
import { checkIdentity } from './checks/identity.ts';
import { checkWebhooks } from './checks/webhooks.ts';
import { checkRenames } from './renames.ts';

export function validateModel(input: unknown): Model {
  const structural = schemaErrors(input);
  const domain = domainErrors(input, structural.length > 0);
  if (structural.length || domain.length) throw new ModelValidationError([...structural, ...domain]);
  return input as Model;
}

/**
 * The domain rules' errors. On a model that already broke its JSON Schema they are still reported where
 * the checks can read the model, so one run shows every problem; where they cannot, the schema's errors stand alone.
 */
function domainErrors(input: unknown, malformed: boolean): ModelValidationError['errors'] {
  const ctx = new CheckContext(input as Model);
  try {
    checkEntities(ctx);
    checkScenarios(ctx);
    checkIdentity(ctx);
    checkWebhooks(ctx);
    checkRenames(ctx);
  } catch (err) {
    if (!malformed) throw err;
  }
  return ctx.errors;
}
