// `npm run commit --full` over a model with sign-in (api.identity): every table committed again as a fresh
// baseline is accepted by the proof, the identity functions keeping the privileges the whole script gives them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateModel } from '../../compiler/model/validate.ts';
import { commitModel } from '../../ops/commit.ts';
import { dropDatabase, withDatabase } from '../../ops/pg/admin.ts';
import { root } from '../harness/child.ts';
import { adminUrl, freshDatabase, type TestDatabase } from '../harness/db.ts';

let dev: TestDatabase;
let dir: string;
const model = validateModel(JSON.parse(readFileSync(join(root, 'examples/publishing.model.json'), 'utf8')));

test.before(async () => {
  dev = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'commit-full-'));
});
test.after(async () => {
  if (dev) await dropDatabase(adminUrl(), `${dev.name}_shadow`);
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the publishing example committed, then committed again with --full', async () => {
  assert.ok(model.api.identity, 'the example signs users in');
  const run = (o: { full?: boolean; message: string }) => commitModel({
    model, folder: dir, databaseUrl: dev.url, shadowUrl: withDatabase(dev.url, `${dev.name}_shadow`), rootUrl: adminUrl(), ...o,
  });
  assert.equal(await run({ message: 'baseline' }), ['000001-engine.sql', '000002-baseline.sql']);
  assert.equal(await run({ message: 'again', full: true }), ['000003-again.sql']);
  assert.equal(readdirSync(join(dir, 'committed')).sort(), ['000001-engine.sql', '000002-baseline.sql', '000003-again.sql']);
  const [row] = await dev.sql`select has_function_privilege('authenticated', 'api.auth_token(jsonb)', 'execute') as can`;
  assert.ok(row?.can);
});

test.run();
