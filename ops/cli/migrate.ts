// `npm run migrate [-- --model <file>] [--migrations <dir>]`: brings the database (DATABASE_URL or embedded)
// up to the migrations folder, after compiling --model into its current.sql when given; prints one line on
// success, PostgreSQL's refusal and exit code 1 on failure.
import { existsSync } from 'node:fs';
import { hasCommitted } from '../../compiler/delta.ts';
import { join, relative, resolve } from 'node:path';
import { commandLine } from '../../compiler/command-line.ts';
import { resolveDatabase, projectRoot } from '../pg/resolve.ts';
import { describeFailure, migrateDatabase, releaseMigratePools } from '../migrate.ts';
import { compileOrExit, writeScript } from './model-script.ts';
import { AUTHENTICATOR_PASSWORD_ENV, setRolePassword } from '../pg/gateway-role.ts';
import { roleNamesFromEnv } from '../../compiler/sql/roles.ts';

async function main(): Promise<number> {
  const values = commandLine(`Usage: npm run migrate -- [--model <file>] [--migrations <dir>]

Brings the database (DATABASE_URL, else the embedded one) up to the committed migrations and current.sql of <dir>
(default db/migrations), after compiling --model into its current.sql when given. AUTHENTICATOR_PASSWORD, when set,
becomes the gateway role's password afterwards. PostgreSQL 15 to 18.`, { migrations: { type: 'string' }, model: { type: 'string' } });
  const folder = values.model
    ? writeScript(resolve(values.model), compileOrExit(resolve(values.model)), values.migrations)
    : resolve(values.migrations ?? join(projectRoot, 'db/migrations'));
  const rel = relative(process.cwd(), folder);
  const shown = rel.startsWith('..') ? folder : rel || '.';
  if (!existsSync(join(folder, 'current.sql')) && !hasCommitted(folder)) {
    console.error(`Nothing to migrate: ${shown} has no current.sql and no committed migrations.`);
    console.error('Write one with: npm run compile -- --model <file>');
    return 1;
  }

  const db = await resolveDatabase();
  try {
    const result = await migrateDatabase({ connectionString: db.url, migrationsFolder: folder });
    const password = process.env[AUTHENTICATOR_PASSWORD_ENV];
    if (password) {
      const role = roleNamesFromEnv(process.env).authenticator;
      await setRolePassword(db.url, role, password);
      console.log(`Set the password of ${role} from ${AUTHENTICATOR_PASSWORD_ENV}.`);
    }
    const name = decodeURIComponent(new URL(db.url).pathname.slice(1));
    const current = { applied: 'current.sql applied', unchanged: 'current.sql unchanged', absent: 'no current.sql' };
    console.log(`Migrated database ${name} from ${shown}: ${result.committed} committed migration(s) run, ` +
      `${current[result.current]}.`);
    return 0;
  } catch (err) {
    console.error(describeFailure(err));
    return 1;
  } finally {
    // graphile-migrate ends its pools without waiting; the embedded database must outlive their connections.
    if (db.embedded) await releaseMigratePools(db.url);
    await db.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(describeFailure(err));
    process.exit(1);
  },
);
