// Starts the gateway for the benchmark as production runs it (built by `npm run build`, served by
// `node dist/ops/cli/serve.js`), as a child process with its own event loop, against the bench database.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { projectRoot } from '../ops/pg/resolve.ts';
import { gatewayUrl, SET_PASSWORD_ENV } from '../ops/pg/gateway-role.ts';

export interface Gateway {
  base: string;
  /** The gateway process's CPU time so far (user and system, µs), where /proc tells it (Linux). */
  cpuMicros(): number | undefined;
  stop(): Promise<void>;
}

/** Whether this run built dist/ already (bench:fairness starts the gateway twice). */
let distBuilt = false;

/**
 * `env`: more of the gateway's environment (limits such as POOL_CALLER_MAX). The database is migrated already
 * (installBenchDatabase); the gateway logs in as `authenticator`, as `serve` requires.
 */
export async function startGateway(databaseUrl: string, port: number, jwtSecret: string, env: Record<string, string> = {}): Promise<Gateway> {
  if (!distBuilt) {
    execFileSync('npm', ['run', '-s', 'build'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    distBuilt = true;
  }
  // The bench database is the bench's own (installBenchDatabase): its authenticator's password is set as npm start sets it.
  const login = await gatewayUrl(databaseUrl, { ...process.env, [SET_PASSWORD_ENV]: 'true' });
  const settings = { GATEWAY_DATABASE_URL: login, PORT: String(port), JWT_SECRET: jwtSecret, FILES_SECRET: randomBytes(32).toString('hex') };
  return startServer(['dist/ops/cli/serve.js'], { ...env, ...settings }, port);
}

/**
 * Runs `args` (a TypeScript file, run by tsx, or a built .js file, and its arguments) in a Node process of its
 * own, from the project's folder, and resolves once it prints "Serving "; its output is drained from then on.
 */
export async function startServer(args: string[], env: Record<string, string>, port: number): Promise<Gateway> {
  // BENCH_GATEWAY_NODE_ARGS: extra Node flags for the gateway alone, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const built = args[0]!.endsWith('.js');
  const extra = built ? (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean) : [];
  const child: ChildProcess = spawn(process.execPath, [...extra, ...(built ? [] : ['--import', 'tsx']), ...args], {
    cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  // However the bench ends (an error it did not catch too), its gateway ends with it.
  const orphaned = () => { child.kill('SIGKILL'); };
  process.once('exit', orphaned);
  child.once('exit', () => process.off('exit', orphaned));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start within 60 s:\n${output}`)), 60_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Serving ')) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${args[0]} exited (${code}):\n${output}`)); });
  });
  child.removeAllListeners('exit');
  // From here on the access log is drained, not kept.
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.removeAllListeners('data');
    stream.resume();
  }
  return {
    base: `http://127.0.0.1:${port}`,
    cpuMicros: () => cpuMicros(child.pid),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    },
  };
}

let ticksPerSecond: number | undefined;

/** Clock ticks per second, the unit of CPU times in /proc (getconf CLK_TCK, usually 100). */
export const clockTicks = (): number => (ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100);

/** utime + stime of a process from /proc/<pid>/stat (fields 14 and 15, in clock ticks), in µs. */
function cpuMicros(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 1e6 / clockTicks();
  } catch {
    return undefined;
  }
}
