// Commits a model's migration with graphile-migrate in reviewable steps: the engine as its own migration
// when it changed, then what the model changed, once a proof shows the chain builds the whole script's database.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commit, type Settings } from 'graphile-migrate';
import { clearAllPools } from 'graphile-migrate/dist/pgReal.js';
import { isNoTransactionDefined } from 'graphile-migrate/dist/header.js';
import { committed, engineDelta, modelDelta, NOTHING_CHANGED } from '../compiler/delta.ts';
import { emitMigration } from '../compiler/emit.ts';
import type { Model } from '../compiler/model/types.ts';
import type { RoleNames } from '../compiler/sql/roles.ts';
import { dropDatabase, ensureDatabase, withAdminClient, withDatabase } from './pg/admin.ts';
import { assertSupportedServer } from './pg/version.ts';
import { schemaShape, shapeDifference } from './pg/schema-shape.ts';
import { collectingLogger, MigrationError } from './migrate.ts';

export interface CommitOptions {
  model: Model;
  /** graphile-migrate's migrations folder (committed/ and current.sql). */
  folder: string;
  /** The development database (graphile-migrate migrates it after committing). */
  databaseUrl: string;
  /** A database graphile-migrate may drop and rebuild from the committed migrations. */
  shadowUrl: string;
  /** A superuser's connection to the maintenance database (creates and drops the shadow and proof databases). */
  rootUrl: string;
  /** The model's migration's message (its file name's slug). */
  message?: string;
  /** Commit every table again, not only the changed ones (a fresh baseline). */
  full?: boolean;
  /** The database roles' names the scripts are compiled for (compiler/sql/roles.ts); the defaults when absent. */
  roles?: RoleNames;
}

/** The chain does not build what the whole script builds: the lines that differ. */
export class ProofError extends Error {
  constructor(readonly differences: string[]) {
    super(`The committed migrations plus this delta would not build the database the whole script builds:\n${differences.join('\n')}`);
    this.name = 'ProofError';
  }
}

/**
 * The development database holds neither the committed migrations nor them plus this delta (another model,
 * or a migration run halfway): graphile-migrate would run the commit on it and could stop halfway.
 */
export class DevelopmentDatabaseError extends Error {
  constructor(readonly differences: string[]) {
    super('The development database holds neither the committed migrations nor them plus this change, so the commit '
      + `cannot run on it (lines of the model's database it lacks '-', or holds besides '+'):\n${differences.join('\n')}`);
    this.name = 'DevelopmentDatabaseError';
  }
}

/** Commits what changed; returns the new files of committed/ (none when nothing changed). */
export async function commitModel(o: CommitOptions): Promise<string[]> {
  await withAdminClient(o.databaseUrl, (sql) => assertSupportedServer(sql));
  const folder = resolve(o.folder);
  mkdirSync(join(folder, 'committed'), { recursive: true });
  const before = committed(folder);
  const opts = { roles: o.roles };
  const engine = engineDelta(before.state, opts);
  const model = modelDelta(o.model, o.full ? { state: new Map(), documents: new Map() } : before, false, opts);
  if (!engine.sql && !model.sql) return [];
  const steps: (readonly [sql: string, message: string])[] = [[engine.sql, 'engine'], ...(model.concurrent ?? []).map((c) => [c.sql, `index ${c.name}`] as const),
    [model.sql, o.message ?? 'model']];
  const shapes = await prove(o.rootUrl, folder, steps.map(([sql]) => sql).filter(Boolean), emitMigration(o.model, opts));
  // Checked before anything is written: the commit runs on this database, which must be where the chain is.
  const dev = await withAdminClient(o.databaseUrl, schemaShape);
  if (shapeDifference(shapes.committed, dev, 1).length && shapeDifference(shapes.whole, dev, 1).length) {
    // The tables that differ, when some do: they say which model the database holds.
    const all = shapeDifference(shapes.whole, dev, Infinity);
    const tables = all.filter((l) => /^[-+] relation /.test(l));
    throw new DevelopmentDatabaseError((tables.length ? tables : all).slice(0, 20));
  }
  const files = new Set(committedFiles(folder));
  const settings: Settings = {
    connectionString: o.databaseUrl, shadowConnectionString: o.shadowUrl, rootConnectionString: o.rootUrl,
    migrationsFolder: folder, logger: collectingLogger([]),
  };
  try {
    for (const [sql, message] of steps) {
      if (!sql) continue;
      writeFileSync(join(folder, 'current.sql'), sql);
      await commit(settings, message);
    }
  } catch (err) {
    throw new MigrationError(err);
  } finally {
    clearAllPools();
    writeFileSync(join(folder, 'current.sql'), NOTHING_CHANGED);
  }
  return committedFiles(folder).filter((f) => !files.has(f));
}

const committedFiles = (folder: string) => readdirSync(join(folder, 'committed')).filter((f) => f.endsWith('.sql')).sort();

/** A committed migration's SQL without graphile-migrate's `--! ` header lines. */
const bodyOf = (text: string) => text.replace(/^(--! .*\n)+\n?/, '');

/**
 * Builds one throwaway database from the committed migrations and the new scripts, another from the whole
 * script, and compares what they hold; any difference refuses the commit. Returns what the committed
 * migrations alone build, and what the whole script builds.
 */
async function prove(rootUrl: string, folder: string, scripts: string[], whole: string): Promise<{ committed: string[]; whole: string[] }> {
  const suffix = `${process.pid}_${Date.now().toString(36)}`;
  const chainDb = `modelapi_proof_chain_${suffix}`, wholeDb = `modelapi_proof_whole_${suffix}`;
  /** The shape after each step: a step is the scripts run one after the other. */
  const run = async (database: string, steps: string[][]) => {
    await ensureDatabase(rootUrl, database);
    return withAdminClient(withDatabase(rootUrl, database), async (sql) => {
      const shapes: string[][] = [];
      for (const step of steps) {
        // A `--! no-transaction` script (an index built concurrently) runs as graphile-migrate runs it: on its own.
        for (const body of step) await (isNoTransactionDefined(body) ? sql.unsafe(body) : sql.begin((tx) => tx.unsafe(body)));
        shapes.push(await schemaShape(sql));
      }
      return shapes;
    });
  };
  try {
    const committed = committedFiles(folder).map((f) => bodyOf(readFileSync(join(folder, 'committed', f), 'utf8')));
    // One after the other: the engine creates cluster-wide roles, which two sessions would race to create.
    // A script that fails here keeps PostgreSQL's detail and hint (a refusal says what to do).
    const proofRun: typeof run = (database, steps) => run(database, steps).catch((err: unknown) => { throw new MigrationError(err); });
    const [full] = await proofRun(wholeDb, [[whole]]);
    const [before, chain] = await proofRun(chainDb, [committed, scripts]);
    const differences = shapeDifference(full!, chain!);
    if (differences.length) throw new ProofError(differences);
    return { committed: before!, whole: full! };
  } finally {
    await Promise.all([dropDatabase(rootUrl, chainDb), dropDatabase(rootUrl, wholeDb)]);
  }
}
