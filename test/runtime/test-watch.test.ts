// The test commands themselves (issue 14): `npm test -- <file>` runs that one file and ends with its totals, and
// `npm run test:watch -- <file>` runs it again when a file under test/ changes (here a new file in an ignored folder).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { npmRun, root, spawnGroup, stopGroup } from '../harness/child.ts';
import { adminUrl } from '../harness/db.ts';

const TARGET = 'test/runtime/harness.test.ts';
// Under test/ (watched) and ignored by git (.gitignore's .tmp* folders), so nothing shows in git status.
const scratch = join(root, 'test', `.tmp-watch-${process.pid}`);

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('npm test -- <file> runs that file alone and ends with its totals', async () => {
  const run = await npmRun('test', [TARGET], { DATABASE_URL: adminUrl() }, 120_000);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, 'harness.test.ts');
  assert.not.match(run.stdout, /\b(migrate|start|commit)\.test\.ts/, 'no other file of the folder ran');
  assert.match(run.stdout.trim().split('\n').at(-1)!, /^4 passed, 0 failed$/);
});

test('npm run test:watch -- <file> runs it again on a change under test/', async () => {
  const npmCli = process.env.npm_execpath;
  const args = ['run', '--silent', 'test:watch', '--', TARGET];
  const [cmd, argv] = npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli, ...args]] : ['npm', args];
  // The watcher and the runs it starts: one process group, ended with this test whatever stops it (test/harness/child.ts).
  const child = spawnGroup(cmd, argv, { cwd: root, env: { ...process.env, DATABASE_URL: adminUrl() }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const runs = () => out.match(/^4 passed, 0 failed$/gm)?.length ?? 0;
  const waitFor = async (n: number, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end && runs() < n;) await new Promise((r) => setTimeout(r, 200));
    return runs();
  };
  try {
    assert.is(await waitFor(1, 90_000), 1, `the first run:\n${out}`);
    await new Promise((r) => setTimeout(r, 1500));
    assert.is(runs(), 1, 'nothing changed: no second run');
    mkdirSync(scratch, { recursive: true });
    writeFileSync(join(scratch, 'touched.ts'), `export const at = ${Date.now()};\n`);
    assert.is(await waitFor(2, 90_000), 2, `a run after the change:\n${out}`);
    assert.match(out, /Restarting/);
  } finally {
    await stopGroup(child); // the watcher and the runs it started, all ended before the test is
  }
});

test.run();
