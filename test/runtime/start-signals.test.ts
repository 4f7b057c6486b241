// `npm start` under a process manager: a SIGTERM sent to npm's own process (sh and node run below it) ends every
// process of it, the server draining first; none is left running, re-parented to PID 1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, spawnGroup } from '../harness/child.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { freePort } from '../harness/net.ts';

let db: TestDatabase;
let dir: string;

test.before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'start-signals-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tinyModel));
});
test.after(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every process below `pid` (Linux /proc), children first found first. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const visit = (p: number) => {
    let children: string;
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8');
    } catch {
      return;
    }
    for (const c of children.split(' ').filter(Boolean).map(Number)) {
      out.push(c);
      visit(c);
    }
  };
  visit(pid);
  return out;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));

test('SIGTERM to npm ends the server below it, which drains and exits', async () => {
  if (!existsSync('/proc/self/task')) return; // the check reads /proc
  const env = { ...process.env, DATABASE_URL: db.url, SET_AUTHENTICATOR_PASSWORD: 'true', MODEL: join(dir, 'tiny.model.json'), PORT: String(await freePort()) };
  const npm = spawnGroup('npm', ['start', '--', '--migrations', join(dir, 'migrations')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stdout!.on('data', (c: Buffer) => (out += c));
  npm.stderr!.on('data', (c: Buffer) => (out += c));
  const below: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not serve:\n${out}`)), 120_000);
      npm.stdout!.on('data', () => { if (/Health: /.test(out)) { clearTimeout(timer); resolve(); } });
      npm.once('close', () => { clearTimeout(timer); reject(new Error(`npm start exited:\n${out}`)); });
    });
    below.push(...descendants(npm.pid!));
    assert.ok(below.length >= 1, 'npm runs the server in a process below it');
    npm.kill('SIGTERM');
    // Decided by events: every process below npm exits; the bound only keeps a broken build from hanging the run.
    for (let i = 0; i < 300 && below.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(below.filter(alive), [], `left running after npm's SIGTERM:\n${out}`);
  } finally {
    for (const pid of [...below, npm.pid!]) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  }
});

test.run();
