// The test runner (`npm test`): a test process that dies before its totals (an uncaught error from a test's
// leftovers) counts what finished and one failure for its file, and the files after it still run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { npmRun, root } from '../harness/child.ts';
import { adminUrl } from '../harness/db.ts';

// Inside the project (so `uvu` resolves), outside test/ (so the suite itself never runs these files).
const dir = join(root, '.data', `runner-crash-${process.pid}`);
const passing = (n: number) => `import { test } from 'uvu';\n${Array.from({ length: n }, (_, i) => `test('passes ${i}', () => {});`).join('\n')}\ntest.run();\n`;

test.before(() => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'a.test.ts'), passing(1));
  // Thrown from a timer after the test body returned, as an unlistened stream's error is: the process dies.
  writeFileSync(join(dir, 'b.test.ts'), `import { test } from 'uvu';
test('passes', () => {});
test('dies', async () => {
  setTimeout(() => { throw new Error('an uncaught error from a leftover'); }, 10);
  await new Promise((r) => setTimeout(r, 5000));
});
test.run();
`);
  writeFileSync(join(dir, 'c.test.ts'), passing(2));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a crash in one file: its finished tests and the files after it are counted, the run fails', async () => {
  const run = await npmRun('test', [relative(root, dir)], { DATABASE_URL: adminUrl() }, 120_000);
  assert.is(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stderr, 'The test process died in b.test.ts; a new one runs the files after it (1).');
  assert.match(run.stdout, /c\.test\.ts\s*\n.*\(2 \/ 2\)/);
  assert.is(run.stdout.trim().split('\n').pop(), '3 passed, 1 failed');
});

test.run();
