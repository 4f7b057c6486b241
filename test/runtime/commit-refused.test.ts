// `npm run commit` against a development database that holds another model: refused before anything is
// written (no committed file, current.sql as it was, the database untouched), never committed halfway.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateModel } from '../../compiler/model/validate.ts';
import { commitModel, DevelopmentDatabaseError } from '../../ops/commit.ts';
import { dropDatabase, withDatabase } from '../../ops/pg/admin.ts';
import { schemaShape } from '../../ops/pg/schema-shape.ts';
import { root } from '../harness/child.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { adminUrl, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

let dev: TestDatabase;
let dir: string;
const WORK_IN_PROGRESS = '-- a hand-written change not yet committed\n';

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'commit-refused-'));
  mkdirSync(join(dir, 'committed'));
  writeFileSync(join(dir, 'current.sql'), WORK_IN_PROGRESS);
  dev = await freshDatabase();
  try {
    await installModel(dev, tinyModel);
    await dev.sql`insert into app.notes (title) values ('kept')`;
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});
test.after(async () => {
  if (dev) await dropDatabase(adminUrl(), `${dev.name}_shadow`);
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a development database holding another model refuses the commit before anything is written', async () => {
  const before = await schemaShape(dev.sql);
  const billing = validateModel(JSON.parse(readFileSync(join(root, 'examples/billing.model.json'), 'utf8')));
  const err = await commitModel({
    model: billing, folder: dir, databaseUrl: dev.url, shadowUrl: withDatabase(dev.url, `${dev.name}_shadow`), rootUrl: adminUrl(),
  }).then(() => undefined, (e: unknown) => e);
  assert.instance(err, DevelopmentDatabaseError, String((err as Error)?.stack ?? err));
  const differences = (err as DevelopmentDatabaseError).differences;
  assert.ok(differences.some((d) => d.startsWith('- relation app.customers ')), differences.join('\n'));
  assert.ok(differences.some((d) => d.startsWith('+ relation app.notes ')), differences.join('\n'));
  assert.equal(readdirSync(join(dir, 'committed')), [], 'nothing committed');
  assert.is(readFileSync(join(dir, 'current.sql'), 'utf8'), WORK_IN_PROGRESS, 'current.sql as it was');
  assert.equal(await schemaShape(dev.sql), before, 'the database untouched');
  assert.equal((await dev.sql`select title from app.notes`).map((r) => r.title), ['kept']);
});

test.run();
