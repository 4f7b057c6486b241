// Applies a graphile-migrate folder to a database: committed migrations, then current.sql once
// (what `graphile-migrate watch --once` does), throwing MigrationError with PostgreSQL's words on failure.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Logger, migrate, watch, type Settings } from 'graphile-migrate';
import { clearAllPools } from 'graphile-migrate/dist/pgReal.js';
import { withAdminClient, withDatabase } from './pg/admin.ts';
import { assertSupportedServer, UnsupportedServerError } from './pg/version.ts';

export interface MigrateOptions {
  connectionString: string;
  /** Folder holding `committed/` and `current.sql` (graphile-migrate's migrationsFolder). */
  migrationsFolder: string;
  /** Told once when another migration of the database runs and this one waits for it (default: stderr). */
  onWait?: (message: string) => void;
}

/**
 * The session advisory lock a migration holds, so that two at once (gateways started together in a rolling
 * deploy) run one after the other: graphile-migrate's own lock is tried once and fails the second with
 * "Failed to get exclusive lock". 1835102313 is this product's lock space ('mapi'; lib.hash_slot takes 0 and up).
 */
const MIGRATION_LOCK = [1835102313, -1] as const;

/** Runs `fn` holding MIGRATION_LOCK on the database behind `url`, waiting (without limit) while another holds it. */
async function withMigrationLock<T>(url: string, onWait: (message: string) => void, fn: () => Promise<T>): Promise<T> {
  return withAdminClient(url, async (sql) => {
    await assertSupportedServer(sql); // before the lock and before graphile-migrate writes its own schema
    const [a, b] = MIGRATION_LOCK;
    if (!(await sql`select pg_try_advisory_lock(${a}, ${b}) as ok`)[0]!.ok) {
      const [holder] = await sql`select l.pid, a.application_name from pg_locks l left join pg_stat_activity a using (pid)
        where l.locktype = 'advisory' and l.classid = ${a} and l.objid = ${b >>> 0} and l.objsubid = 2 and l.granted`;
      onWait(`Another migration of this database is running${holder ? ` (backend pid ${holder.pid}${holder.application_name ? `, ${holder.application_name}` : ''})` : ''}; waiting for it to end.`);
      await sql`select pg_advisory_lock(${a}, ${b})`;
    }
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${a}, ${b})`.catch(() => {}); // a lost connection released it already
    }
  });
}

export interface MigrateResult {
  /** Committed migrations run now. */
  committed: number;
  /** What happened to current.sql: run, skipped as unchanged since the last run, or absent. */
  current: 'applied' | 'unchanged' | 'absent';
}

/** A refused migration, carrying PostgreSQL's error fields and where in which file it stopped. */
export class MigrationError extends Error {
  code?: string;
  detail?: string;
  hint?: string;
  where?: string;
  /** File, line and column of the failing statement when PostgreSQL reported a position. */
  file?: string;
  line?: number;
  column?: number;

  constructor(cause: unknown) {
    const e = (cause ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof e[k] === 'string' && e[k] ? (e[k] as string) : undefined);
    // graphile-migrate computes the position against the body it ran and keeps it in this override.
    const at = /line (\d+), column (\d+) of "([^"]+)"/.exec(stripAnsi(text('_gmMessageOverride') ?? ''));
    const base = text('message') ?? String(cause);
    super(at ? `${base} (${at[3]} line ${at[1]}, column ${at[2]})` : base, { cause });
    this.name = 'MigrationError';
    this.code = text('code');
    this.detail = text('detail');
    this.hint = text('hint');
    this.where = text('where');
    if (at) [this.line, this.column, this.file] = [Number(at[1]), Number(at[2]), at[3]];
  }
}

export async function migrateDatabase(opts: MigrateOptions): Promise<MigrateResult> {
  const onWait = opts.onWait ?? ((message: string) => void process.stderr.write(`${message}\n`));
  return withMigrationLock(opts.connectionString, onWait, () => migrateLocked(opts));
}

async function migrateLocked(opts: MigrateOptions): Promise<MigrateResult> {
  const messages: string[] = [];
  const settings: Settings = {
    connectionString: opts.connectionString,
    migrationsFolder: resolve(opts.migrationsFolder),
    logger: collectingLogger(messages),
  };
  const folder = settings.migrationsFolder as string;
  const hasCurrent = existsSync(join(folder, 'current.sql')) || existsSync(join(folder, 'current'));
  try {
    // watch(once) runs migrate first; without a current script plain migrate avoids creating a blank one.
    await (hasCurrent ? watch(settings, true) : migrate(settings));
  } catch (err) {
    const refused = new MigrationError(err);
    refused.file ??= runningFile(messages);
    throw refused;
  } finally {
    clearAllPools(); // graphile-migrate keeps idle pools for 200 ms; close them now
  }
  const executed = messages.map((m) => /(\d+) committed migrations executed/.exec(m)).find(Boolean);
  return {
    committed: executed ? Number(executed[1]) : 0,
    current: !hasCurrent ? 'absent' : messages.some((m) => m.includes('current.sql unchanged')) ? 'unchanged' : 'applied',
  };
}

/** The script graphile-migrate had started last (a committed migration's file, or current.sql), from its log. */
function runningFile(messages: string[]): string | undefined {
  let file: string | undefined;
  for (const m of messages) {
    const committed = /Running migration '([^']+)'/.exec(m)?.[1];
    if (committed) file = `committed/${committed}`;
    else if (/Running current\.sql/.test(m)) file = 'current.sql';
  }
  return file;
}

/** Prints a failed migration the way a person fixing the SQL wants to read it. */
export function describeFailure(err: unknown): string {
  if (err instanceof UnsupportedServerError) return err.message;
  if (!(err instanceof MigrationError)) return `Migration failed: ${(err as Error)?.message ?? String(err)}`;
  const lines = [`Migration refused: ${err.message}${err.code ? ` [${err.code}]` : ''}`];
  // Which committed migration refused (current.sql, the model's own script, is what the user just changed); it is
  // fixed in graphile-migrate's hashed chain, so a later model cannot undo what it asks.
  const committed = err.file?.startsWith('committed/') ? err.file : undefined;
  if (committed && !err.message.includes(committed)) lines.push(`  in: ${committed}`);
  if (err.detail) lines.push(`  detail: ${err.detail}`);
  if (err.hint) lines.push(`  hint: ${err.hint}`);
  if (committed) {
    lines.push('  note: this migration is committed and cannot change, and the ones after it wait for it: change the data it refuses (the hint says how), then migrate again.');
  }
  // A refusal of ours (message "Refused: …") is meant for the user as it is; where in the reconcile
  // helpers it was raised is noise. Other failures keep it: it points at the statement.
  if (err.where && !err.message.startsWith('Refused:')) lines.push(`  where: ${err.where}`);
  return lines.join('\n');
}

/** Keeps graphile-migrate's messages for the result; echoes them to stderr only when DEBUG is set. */
/** graphile-migrate's log kept in `messages` (printed too with DEBUG). */
export function collectingLogger(messages: string[]): Logger {
  return new Logger(() => (level, message) => {
    messages.push(message);
    if (process.env.DEBUG) process.stderr.write(`[graphile-migrate ${level}] ${message}\n`);
  });
}

function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

/**
 * Closes graphile-migrate's idle pools and waits (at most `ms`) until the cluster behind `url` (the
 * embedded one, which the caller stops next) has no other client: graphile-migrate ends its pools without
 * waiting, and a connection of theirs still open when the database stops makes their error handler exit 1.
 */
export async function releaseMigratePools(url: string, ms = 3000): Promise<void> {
  clearAllPools();
  await withAdminClient(withDatabase(url, 'postgres'), async (sql) => {
    for (const until = Date.now() + ms; Date.now() < until;) {
      const [row] = await sql`select count(*)::int as n from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'`;
      if (!row?.n) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }).catch(() => {}); // the database is already gone: nothing is left to wait for
}
