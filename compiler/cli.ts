// `npm run compile -- --model <file> [--out <migrations dir>]`: validates a model and writes its idempotent
// migration to <dir>/current.sql (default db/migrations): whole, or what changed since <dir>/committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from './command-line.ts';
import { compileFile, ModelValidationError } from './index.ts';
import { scriptFor } from './delta.ts';
import { RoleNameError, roleNamesFromEnv } from './sql/roles.ts';

const values = commandLine(`Usage: npm run compile -- [--model <file>] [--out <migrations dir>]

Validates the model (default: MODEL, else examples/publishing.model.json) and writes its migration to
<dir>/current.sql (default db/migrations): the whole script, or what changed since <dir>/committed.
Role names: DB_ROLE_PREFIX, DB_ANON_ROLE, DB_AUTHENTICATED_ROLE, DB_AUTHENTICATOR_ROLE.`, {
  model: { type: 'string', default: process.env.MODEL ?? 'examples/publishing.model.json' }, out: { type: 'string', default: 'db/migrations' },
});

try {
  // The database roles' names come from the environment (DB_ROLE_PREFIX, DB_*_ROLE: compiler/sql/roles.ts).
  const { model, roles } = compileFile(values.model!, { roles: roleNamesFromEnv(process.env) });
  mkdirSync(values.out!, { recursive: true });
  const target = join(values.out!, 'current.sql');
  writeFileSync(target, scriptFor(model, values.out!, { roles }));
  const n = Object.keys(model.entities).length;
  console.log(`Compiled ${values.model} (${model.api.title}, ${n} entities) into ${target}`);
} catch (err) {
  console.error(err instanceof ModelValidationError || err instanceof RoleNameError ? err.message : `Cannot compile ${values.model}: ${(err as Error).message}`);
  process.exit(1);
}
