// A model compiled into the current.sql of a migrations folder, for `npm start` and `migrate --model`:
// the example's script lives in the tracked db/migrations, any other model's under .data/migrations/<slug>.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compileFile, ModelValidationError, type Compiled } from '../../compiler/index.ts';
import { scriptFor } from '../../compiler/delta.ts';
import { areDefault, DEFAULT_ROLES, RoleNameError, roleNamesFromEnv, type RoleNames } from '../../compiler/sql/roles.ts';
import { projectRoot } from '../pg/resolve.ts';

export const EXAMPLE_MODEL = join(projectRoot, 'examples/publishing.model.json');

/** Compiles `modelPath` for the role names `env` sets (DB_ROLE_PREFIX, DB_*_ROLE), or prints why it cannot and exits 1. */
export function compileOrExit(modelPath: string, env: NodeJS.ProcessEnv = process.env): Compiled {
  try {
    return compileFile(modelPath, { roles: roleNamesFromEnv(env) });
  } catch (err) {
    if (err instanceof RoleNameError) {
      console.error(err.message);
      process.exit(1);
    }
    // ModelValidationError's message lists every error with its JSON pointer and rule.
    const what = err instanceof ModelValidationError ? 'is not a valid model' : 'could not be compiled';
    console.error(`${modelPath} ${what}.\n${(err as Error).message}`);
    process.exit(1);
  }
}

/**
 * The example model migrates from the repository's db/migrations (its current.sql is that model compiled for the
 * default role names, so writing it changes nothing); any other model, or the example compiled for other role names,
 * keeps its script under .data/migrations/<slug>, so starting it never touches a tracked file.
 */
export function defaultMigrations(modelPath: string, slug: string, roles: RoleNames = DEFAULT_ROLES): string {
  const tracked = resolve(modelPath) === resolve(EXAMPLE_MODEL) && areDefault(roles);
  return tracked ? join(projectRoot, 'db/migrations') : join(projectRoot, '.data/migrations', slug);
}

/**
 * Writes the compiled model as `<folder>/current.sql` (folder: given, else the default): the whole script,
 * or what changed since the folder's committed migrations. Returns the folder.
 */
export function writeScript(modelPath: string, compiled: Compiled, folder?: string): string {
  const migrations = resolve(folder ?? defaultMigrations(modelPath, compiled.model.api.slug, compiled.roles));
  mkdirSync(join(migrations, 'committed'), { recursive: true });
  writeFileSync(join(migrations, 'current.sql'), scriptFor(compiled.model, migrations, { roles: compiled.roles }));
  return migrations;
}
