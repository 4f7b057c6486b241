// Finds the database the service uses: DATABASE_URL when set, else a persistent embedded cluster
// under .data/pg with the `modelapi` database created on first use. Callers stop() it on exit.
import { join } from 'node:path';
import { startEmbedded } from './embedded.ts';
import { persistentSecret } from '../../server/pg/secret.ts';
import { projectRoot } from '../../server/pg/root.ts';
import { ensureDatabase, withDatabase } from './admin.ts';

export { projectRoot };

export interface ResolvedDatabase {
  /** Connection URL of the database the API lives in. */
  url: string;
  /** True for the embedded cluster (stop() is a no-op when another process started it). */
  embedded: boolean;
  stop(): Promise<void>;
}

export interface ResolveOptions {
  env?: NodeJS.ProcessEnv;
  /** Where `.data/` lives; the project root by default. */
  root?: string;
  /** Database created on the embedded cluster; `modelapi` by default. */
  database?: string;
}

export async function resolveDatabase(opts: ResolveOptions = {}): Promise<ResolvedDatabase> {
  const env = opts.env ?? process.env;
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, embedded: false, stop: async () => {} };

  const dataRoot = join(opts.root ?? projectRoot, '.data');
  const port = env.EMBEDDED_PG_PORT ? Number(env.EMBEDDED_PG_PORT) : 54320;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`EMBEDDED_PG_PORT must be a TCP port number, got "${env.EMBEDDED_PG_PORT}"`);
  }
  const cluster = await startEmbedded({
    dataDir: join(dataRoot, 'pg'),
    port,
    password: persistentSecret(join(dataRoot, 'pg-password')),
    persistent: true,
  });
  const database = opts.database ?? 'modelapi';
  try {
    await ensureDatabase(cluster.adminUrl, database);
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return { url: withDatabase(cluster.adminUrl, database), embedded: true, stop: cluster.stop };
}
