// Starts the gateway for the benchmark the way `npm start` runs it, as a child process with its own event
// loop (so the load generator does not share it), against the bench database; resolves once it serves.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../server/pg/resolve.ts';

export interface Gateway {
  base: string;
  stop(): Promise<void>;
}

export async function startGateway(databaseUrl: string, port: number, jwtSecret: string): Promise<Gateway> {
  const migrations = mkdtempSync(join(tmpdir(), 'modelapi-bench-migrations-'));
  // BENCH_GATEWAY_NODE_ARGS: extra Node flags for the gateway alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const extra = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...extra, '--import', 'tsx', 'server/cli/start.ts', '--migrations', migrations], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), JWT_SECRET: jwtSecret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start within 60 s:\n${output}`)), 60_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Serving ')) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the gateway exited (${code}):\n${output}`)); });
  });
  child.removeAllListeners('exit');
  // From here on the access log is drained, not kept.
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.removeAllListeners('data');
    stream.resume();
  }
  return {
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      rmSync(migrations, { recursive: true, force: true });
    },
  };
}
