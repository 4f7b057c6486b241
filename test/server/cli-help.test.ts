// Every command line answers --help and --version, and a bad argument with what is wrong and the usage (exit 2),
// never a stack trace or a server started by mistake.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../harness/child.ts';

const COMMANDS = ['compiler/cli', 'compiler/spec-cli', 'ops/cli/migrate', 'ops/cli/commit', 'ops/cli/start', 'ops/cli/token', 'ops/cli/serve'];
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

const run = (command: string, args: string[]) => spawnSync(process.execPath, ['scripts/run.mjs', command, ...args], {
  cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '1' },
});

for (const command of COMMANDS) {
  test(`${command}: --help prints its usage, --bogus is refused with it (exit 2), no stack`, () => {
    const help = run(command, ['--help']);
    assert.is(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: /);
    const bad = run(command, ['--bogus']);
    assert.is(bad.status, 2, bad.stdout + bad.stderr);
    assert.match(bad.stderr, "Unknown option '--bogus'");
    assert.match(bad.stderr, 'Usage: ');
    assert.not.match(bad.stderr, /\n\s+at /);
  });
}

test('--version names the project and its version', () => {
  for (const command of ['ops/cli/migrate', 'ops/cli/serve']) {
    const v = run(command, ['--version']);
    assert.is(v.status, 0, v.stderr);
    assert.is(v.stdout.trim(), `modelapi ${version}`);
  }
});

test.run();
