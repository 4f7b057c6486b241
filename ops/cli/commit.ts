// `npm run commit -- --model <file> [--migrations <dir>] [-m <message>] [--full]`: commits the model's
// migration with graphile-migrate: the engine as its own migration when it changed, then what the model changed.
import { relative, resolve } from 'node:path';
import { commandLine } from '../../compiler/command-line.ts';
import { resolveDatabase } from '../pg/resolve.ts';
import { withDatabase } from '../pg/admin.ts';
import { commitModel, DevelopmentDatabaseError, ProofError } from '../commit.ts';
import { describeFailure, releaseMigratePools } from '../migrate.ts';
import { compileOrExit, defaultMigrations, EXAMPLE_MODEL } from './model-script.ts';

async function main(): Promise<number> {
  const values = commandLine(`Usage: npm run commit -- [--model <file>] [--migrations <dir>] [-m <message>] [--full]

Commits the model's migration with graphile-migrate: the engine as its own migration when it changed, then what the
model changed since the committed migrations (--full: every table again), once a proof shows the chain builds the
same database as the whole script. DATABASE_URL is the development database; SHADOW_DATABASE_URL, ROOT_DATABASE_URL.`, {
    model: { type: 'string' }, migrations: { type: 'string' }, message: { type: 'string', short: 'm' }, full: { type: 'boolean' },
  });
  const modelPath = resolve(values.model ?? process.env.MODEL ?? EXAMPLE_MODEL);
  const { model, roles } = compileOrExit(modelPath);
  const folder = resolve(values.migrations ?? defaultMigrations(modelPath, model.api.slug, roles));
  const db = await resolveDatabase();
  try {
    const name = decodeURIComponent(new URL(db.url).pathname.slice(1));
    const files = await commitModel({
      model, roles, folder, databaseUrl: db.url, full: values.full === true,
      shadowUrl: process.env.SHADOW_DATABASE_URL || withDatabase(db.url, `${name}_shadow`),
      rootUrl: process.env.ROOT_DATABASE_URL || withDatabase(db.url, 'postgres'),
      ...(values.message ? { message: values.message } : {}),
    });
    const rel = relative(process.cwd(), folder);
    const shown = rel.startsWith('..') ? folder : rel || '.';
    if (files.length === 0) console.log(`Nothing to commit: ${shown}/committed holds the model as it is.`);
    for (const f of files) console.log(`Committed ${shown}/committed/${f}`);
    return 0;
  } catch (err) {
    if (err instanceof ProofError) {
      console.error(`${err.message}\nNothing was committed. Commit every table again with --full.`);
      return 1;
    }
    if (err instanceof DevelopmentDatabaseError) {
      console.error(`${err.message}\nNothing was committed. Bring the development database to this model first, then commit again:\n`
        + `  npm run migrate -- --model ${relative(process.cwd(), modelPath) || modelPath} --migrations ${relative(process.cwd(), folder) || folder}`);
      return 1;
    }
    console.error(describeFailure(err));
    return 1;
  } finally {
    // graphile-migrate ends its pools without waiting; the embedded database must outlive their connections.
    if (db.embedded) await releaseMigratePools(db.url);
    await db.stop();
  }
}

main().then((code) => process.exit(code), (err) => {
  console.error(describeFailure(err));
  process.exit(1);
});
