// `npm run spec -- --model <file> --out <dir>` writes openapi.json and api.raml without a database,
// the same documents the gateway serves for that model; an invalid model exits 1 naming its errors.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRaml } from '../../compiler/raml/build.ts';
import { npmRun } from '../harness/child.ts';
import { documentOf } from './support.ts';

let dir = '';
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'spec-cli-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('npm run spec writes both documents for a model', async () => {
  const out = join(dir, 'billing');
  const run = await npmRun('spec', ['--model', 'examples/billing.model.json', '--out', out], { DATABASE_URL: 'postgres://nowhere.invalid/none' });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, 'openapi.json');
  const doc = documentOf('examples/billing.model.json');
  assert.equal(JSON.parse(readFileSync(join(out, 'openapi.json'), 'utf8')), doc);
  assert.is(readFileSync(join(out, 'api.raml'), 'utf8'), buildRaml(doc));
});

test('an invalid model exits 1 with its errors', async () => {
  const bad = join(dir, 'bad.model.json');
  writeFileSync(bad, JSON.stringify({ api: { slug: 'x' }, entities: {} }));
  const run = await npmRun('spec', ['--model', bad, '--out', join(dir, 'bad')], {});
  assert.is(run.code, 1);
  assert.match(run.stderr, '/api');
});

test.run();
