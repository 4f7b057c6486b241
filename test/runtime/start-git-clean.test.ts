// `npm start` with another model (issue 14): MODEL=examples/billing.model.json compiles, migrates and serves, and
// `git status` (tracked content and untracked files) is the same afterwards: its script lives under ignored .data/.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, startTs } from '../harness/child.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';

const git = (...args: string[]) => spawnSync('git', ['-C', root, ...args], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
const inRepository = git('rev-parse', '--is-inside-work-tree').status === 0;

/** What `git status` would show: the changed and untracked paths, and the exact changes to tracked files. */
function snapshot(): string {
  const status = git('status', '--porcelain=v1', '--untracked-files=all').stdout.toString('utf8');
  const diff = createHash('sha256').update(git('diff', '--binary', 'HEAD').stdout).digest('hex');
  return `${status}\ndiff ${diff}`;
}

const script = join(root, '.data/migrations/billing/current.sql');
let kept: string | undefined;
let db: TestDatabase;

test.before(async () => {
  db = await freshDatabase();
  kept = existsSync(script) ? readFileSync(script, 'utf8') : undefined; // a developer's own run of billing
});
test.after(async () => {
  await db?.close();
  if (kept === undefined) rmSync(join(root, '.data/migrations/billing'), { recursive: true, force: true });
  else writeFileSync(script, kept);
});

test('MODEL=examples/billing.model.json npm start serves billing and leaves git status as it was', async () => {
  if (!inRepository) {
    console.log('  (not a git work tree: skipped)');
    return;
  }
  const before = snapshot();
  const port = await freePort();
  const server = await startTs('ops/cli/start.ts', [], { DATABASE_URL: db.url, PORT: String(port), MODEL: 'examples/billing.model.json', LOG_LEVEL: 'silent', SET_AUTHENTICATOR_PASSWORD: 'true' }, /Health: /, 120_000);
  try {
    assert.match(server.output(), 'Serving Billing API');
    const res = await fetch(`http://127.0.0.1:${port}/api/billing/v2/openapi.json`);
    assert.is(res.status, 200);
    assert.ok(existsSync(script), 'the script is kept under .data/migrations/billing');
  } finally {
    assert.is(await server.stop(), 0, server.output());
  }
  const [row] = await db.sql`select api.manifest()->'api'->>'slug' as slug`;
  assert.is(row?.slug, 'billing', 'the database serves the other model');
  assert.fixture(snapshot(), before, 'git status after npm start with another model');
});

test.run();
