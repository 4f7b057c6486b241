// The processes a test starts end with it (test/harness/child.ts): a command past its time limit is killed with the
// processes it started, and a test process that is stopped (SIGTERM) or killed outright (SIGKILL, then the runner's
// reaping) takes every tree it started with it. Processes are found by a mark in their arguments (Linux: /proc).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { GROUPS_ENV, reapGroups, root, runProcess, spawnGroup } from './child.ts';

const linux = existsSync('/proc/self/cmdline');

/** Pids of the live processes (not zombies) whose arguments hold `mark`. */
function marked(mark: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(mark)) continue;
      if (/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      pids.push(Number(name));
    } catch { /* it ended meanwhile */ }
  }
  return pids;
}

/** Waits until `n` processes hold `mark` (or none, n = 0); after a minute, fails naming what it saw. */
async function until(mark: string, n: number): Promise<void> {
  for (let tries = 0; marked(mark).length !== n; tries++) {
    if (tries > 1200) assert.unreachable(`${marked(mark).length} processes hold the mark, not ${n}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ends whatever a failed test left. */
const cleanUp = (mark: string) => { for (const pid of marked(mark)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } };

/** `node -e` that starts a grandchild (both holding `mark`) and then runs until killed. */
const withGrandchild = (mark: string) => [
  '-e', `require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)', ${JSON.stringify(mark)}], { stdio: 'ignore' }); setInterval(() => {}, 1e6);`,
  mark,
];

/** A stand-in for a test process: it starts a command with a grandchild through spawnGroup, then waits to be stopped. */
const testProcess = (mark: string, env: NodeJS.ProcessEnv = {}) => spawnGroup(process.execPath, [
  '--import', 'tsx', '--input-type=module', '-e',
  `import { spawnGroup } from './test/harness/child.ts'; spawnGroup(process.execPath, ${JSON.stringify(withGrandchild(mark))}, { stdio: 'ignore' }); setInterval(() => {}, 1e6);`,
], { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });

const fresh = () => `mark-${randomBytes(6).toString('hex')}`;

test('a command past its time limit is killed with the processes it started', async () => {
  if (!linux) return;
  const mark = fresh();
  try {
    const run = await runProcess(process.execPath, withGrandchild(mark), {}, 3_000);
    assert.is(run.code, null, 'killed');
    await until(mark, 0);
  } finally {
    cleanUp(mark);
  }
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`a test process stopped by ${signal} takes the trees it started with it`, async () => {
    if (!linux) return;
    const mark = fresh();
    try {
      const stand = testProcess(mark, { [GROUPS_ENV]: '' }); // no runner behind it: the hook alone
      await until(mark, 2); // its child and grandchild are running
      const closed = once(stand, 'close');
      stand.kill(signal);
      assert.equal(await closed, [null, signal], 'it ended by the signal, as it would have without the hook');
      await until(mark, 0);
    } finally {
      cleanUp(mark);
    }
  });
}

test('a test process killed outright (SIGKILL): the runner kills the groups it was told of', async () => {
  if (!linux) return;
  const mark = fresh();
  const dir = mkdtempSync(join(tmpdir(), 'test-groups-'));
  try {
    const stand = testProcess(mark, { [GROUPS_ENV]: dir });
    await until(mark, 2);
    const closed = once(stand, 'close');
    stand.kill('SIGKILL'); // no hook runs: its child and grandchild live on
    await closed;
    assert.is(marked(mark).length, 2, 'left running by the killed process');
    reapGroups(dir); // what test/run.ts does once its test process has ended
    await until(mark, 0);
    assert.equal(readdirSync(dir), []);
  } finally {
    cleanUp(mark);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
