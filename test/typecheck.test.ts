// The whole project type-checks under tsconfig.json (strict): a type error fails `npm test`
// even though tsx, which runs the code, strips types without checking them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { root } from './harness/child.ts';

test('tsc --noEmit -p . reports no errors', () => {
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', '.'], { cwd: root, encoding: 'utf8', timeout: 240_000 });
  assert.is(run.status, 0, `${run.stdout}${run.stderr}`);
});

test.run();
