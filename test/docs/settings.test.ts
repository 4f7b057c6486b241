// Every request limit the gateway reads from the environment (server/request/limits.ts) is in the table of
// environment variables (docs/deployment.md, "Environment variables"), so moving the README's depth into docs/
// lost none, and a new limit cannot go undocumented.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../harness/child.ts';
import { LIMITS } from '../../server/request/limits.ts';

function section(file: string, heading: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `${file} has a section "${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

test('every variable of server/request/limits.ts is in docs/deployment.md, "Environment variables"', () => {
  const table = section('docs/deployment.md', 'Environment variables');
  const missing = Object.values(LIMITS).map((l) => l.env).filter((name) => !table.includes(`\`${name}\``));
  assert.equal(missing, []);
});

test('README.md points at that table', () => {
  assert.match(readFileSync(join(root, 'README.md'), 'utf8'), '(docs/deployment.md#environment-variables)');
});

test.run();
