// PostgreSQL's own CPU time, for a per-request figure beside the client's: the postmaster and its children
// (backends, background workers), read from /proc when the server runs on this machine (Linux only).
import { readdirSync, readFileSync } from 'node:fs';
import type postgres from 'postgres';

/** [parent pid, utime + stime in clock ticks, command] of a process, or undefined when /proc does not show it. */
function stat(pid: string): [number, number, string] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.split(') ')[1]!.split(' ');
    return [Number(fields[1]), Number(fields[11]) + Number(fields[12]), text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'))];
  } catch {
    return undefined;
  }
}

/**
 * A reader of the server's CPU time so far (µs), found from the postmaster of `sql`'s backend; undefined
 * when the server is not a process of this machine (another host, a container's own pid namespace).
 */
export async function serverCpu(sql: postgres.Sql, ticksPerSecond: number): Promise<(() => number) | undefined> {
  const [row] = await sql<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
  const backend = row ? stat(String(row.pid)) : undefined;
  const postmaster = backend?.[2] === 'postgres' ? backend[0] : undefined;
  if (!postmaster || stat(String(postmaster))?.[2] !== 'postgres') return undefined;
  return () => {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const s = stat(pid);
      if (s && (s[0] === postmaster || Number(pid) === postmaster)) ticks += s[1];
    }
    return ticks * 1e6 / ticksPerSecond;
  };
}
