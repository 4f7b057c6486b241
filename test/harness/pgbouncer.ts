// PgBouncer in transaction mode in front of a test database, when the `pgbouncer` program is on the PATH
// (Debian: apt-get install pgbouncer): a config in a temporary folder, md5 auth for the one login given.
import { spawnGroup } from './child.ts';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './net.ts';

export function pgbouncerPath(): string | undefined {
  return (process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'pgbouncer')).find((p) => existsSync(p));
}

export interface Pooler { url: string; stop(): Promise<void> }

/** Starts PgBouncer (pool_mode transaction, `poolSize` server connections) for `url`'s server and login. */
export async function startPgbouncer(bin: string, url: string, poolSize: number): Promise<Pooler> {
  const target = new URL(url);
  const user = decodeURIComponent(target.username), password = decodeURIComponent(target.password);
  const dir = mkdtempSync(join(tmpdir(), 'modelapi-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${password}"\n`, { mode: 0o644 });
  writeFileSync(join(dir, 'pgbouncer.ini'), [
    '[databases]', `* = host=${target.hostname} port=${target.port}`,
    '[pgbouncer]', 'listen_addr = 127.0.0.1', `listen_port = ${port}`, 'unix_socket_dir =',
    'auth_type = md5', `auth_file = ${join(dir, 'userlist.txt')}`, 'pool_mode = transaction',
    `default_pool_size = ${poolSize}`, 'max_client_conn = 200', 'ignore_startup_parameters = extra_float_digits,options',
  ].join('\n') + '\n', { mode: 0o644 });
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : []; // PgBouncer refuses to run as root
  const child = spawnGroup(bin, [...asUser, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let early = () => {};
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pgbouncer did not start:\n${log}`)), 10_000);
    const onData = (c: Buffer) => {
      log += c.toString();
      if (/process up|listening on/.test(log)) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    early = () => { clearTimeout(timer); reject(new Error(`pgbouncer exited:\n${log}`)); };
    child.once('close', early);
  });
  child.removeListener('close', early); // spawnGroup's own stays
  const exited = new Promise((r) => child.once('close', r));
  const pooled = new URL(url);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(port);
  return {
    url: pooled.toString(),
    async stop() {
      child.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
