// Runs the project's npm commands as child processes, the way a user does, with a time limit so a
// hanging command fails its test instead of the whole run (uvu has no per-test timeout).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export interface Finished { code: number | null; stdout: string; stderr: string }

/** `npm run <script> -- <args>` in the project root; resolves when it exits (killed after `timeoutMs`). */
export function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Finished> {
  const child = spawnNpm(script, args, env);
  let stdout = '', stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
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
  const child = spawn(process.execPath, [...loader, file, ...args], {
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
      child.kill('SIGKILL');
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
  return spawn(cmd, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}
