// Runs the project's npm commands as child processes, the way a user does, with a time limit so a
// hanging command fails its test instead of the whole run (uvu has no per-test timeout). Every process a test starts
// goes through spawnGroup: its whole tree (npm → sh → tsx → node) ends with it, at its time limit, and with the test process.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Finished { code: number | null; stdout: string; stderr: string }

/** `npm run <script> -- <args>` in the project root; resolves when it exits (killed after `timeoutMs`). */
export function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Finished> {
  return finished(spawnNpm(script, args, env), timeoutMs);
}

/** `cmd args` in `cwd` (`env` added to this process's); resolves when it exits (its group killed after `timeoutMs`). */
export function runProcess(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, cwd = root): Promise<Finished> {
  return finished(spawnGroup(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }), timeoutMs);
}

/** What `child` wrote, once it and its output have ended; past `timeoutMs` its whole group is killed. */
function finished(child: ChildProcess, timeoutMs: number): Promise<Finished> {
  let stdout = '', stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => killGroup(child), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Running { child: ChildProcess; output(): string; stop(): Promise<number | null> }

/**
 * Starts `node --import tsx <file>` (what `npm start` runs, minus npm and tsx's own wrapper processes,
 * so that signals reach it directly) and resolves once its stdout matches `ready`.
 */
export function startTs(file: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs = 60_000, loader = ['--import', 'tsx']): Promise<Running> {
  const child = spawnGroup(process.execPath, [...loader, file, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const running: Running = {
    child,
    output: () => out,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`not ready within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (c: Buffer) => {
      out += c.toString('utf8');
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(running);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${out}`));
    });
  });
}

function spawnNpm(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // Under `npm test`, npm_execpath is the npm that runs us; outside it, the one on PATH.
  const npmCli = process.env.npm_execpath;
  const npmArgs = ['run', '--silent', script, '--', ...args];
  const [cmd, argv] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli, ...npmArgs]] : ['npm', npmArgs];
  return spawnGroup(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The process groups started here and not yet ended, by their leader's pid. Killing npm alone left its children (sh,
 * tsx, node, a watcher's runs) running for hours, so each child leads a group of its own, and the group is what is killed.
 */
const groups = new Set<number>();
/** The children started by spawnGroup that have closed (exited, their output ended). */
const closedChildren = new WeakSet<ChildProcess>();
/**
 * Where the runner (test/run.ts) is told of the groups, one empty file each named by its pid, so that it kills what is
 * left of them once this process has ended, even killed outright (SIGKILL runs no hook here).
 */
export const GROUPS_ENV = 'TEST_CHILD_GROUPS';

/**
 * Starts `cmd` as the leader of a process group of its own (detached). What is left of the group is killed once the
 * leader has exited and its output closed, by killGroup (a time limit), and when this process ends, by a signal too.
 */
export function spawnGroup(cmd: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  hookExit();
  const child = spawn(cmd, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid === undefined) return child; // it did not start: its 'error' says why
  groups.add(pid);
  const registry = process.env[GROUPS_ENV];
  if (registry) writeFileSync(join(registry, String(pid)), '');
  child.once('close', () => {
    closedChildren.add(child);
    signalGroup(pid, 'SIGKILL'); // whatever of its group outlived it (a grandchild that let its output go)
    groups.delete(pid);
    if (registry) rmSync(join(registry, String(pid)), { force: true });
  });
  return child;
}

/** Sends `signal` to every process of `child`'s group (its children's children too). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid !== undefined) signalGroup(child.pid, signal);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch { /* the group has ended */ }
}

/**
 * Stops `child`'s group: SIGTERM, then SIGKILL if it has not closed `graceMs` later; resolves when it has closed. The
 * grace only hastens a group that ignores SIGTERM: nothing is decided by it.
 */
export async function stopGroup(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (closedChildren.has(child)) return;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child), graceMs);
  await closed;
  clearTimeout(timer);
}

/** Kills every group the runner was told of in `dir` (GROUPS_ENV) and empties it: the test process has ended. */
export function reapGroups(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // gone already
  }
  for (const name of names) {
    if (/^\d+$/.test(name)) signalGroup(Number(name), 'SIGKILL');
    rmSync(join(dir, name), { force: true });
  }
}

let hooked = false;
/** On exit, and on SIGINT, SIGTERM or SIGHUP (then raised again, for whatever else handles it), every group started here is killed. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    const registry = process.env[GROUPS_ENV];
    for (const pid of groups) {
      signalGroup(pid, 'SIGKILL');
      if (registry) rmSync(join(registry, String(pid)), { force: true });
    }
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      killAll();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
