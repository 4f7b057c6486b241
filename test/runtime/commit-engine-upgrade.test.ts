// An engine upgrade under `npm run commit` (issue 14: the engine as its own versioned migration): a folder whose
// committed engine is older gets a new engine migration, and the proof accepts the chain old engine + new engine.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateHash } from 'graphile-migrate/dist/hash.js';
import { validateModel } from '../../compiler/model/validate.ts';
import { commitModel } from '../../ops/commit.ts';
import { migrateDatabase } from '../../ops/migrate.ts';
import { dropDatabase, withDatabase } from '../../ops/pg/admin.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { adminUrl, freshDatabase, type TestDatabase } from '../harness/db.ts';

let first: TestDatabase, second: TestDatabase;
let folder: string;
const model = validateModel(tinyModel);
const committedDir = () => join(folder, 'committed');
const files = () => readdirSync(committedDir()).filter((f) => f.endsWith('.sql')).sort();
const commit = (db: TestDatabase) => commitModel({
  model, folder, databaseUrl: db.url, shadowUrl: withDatabase(db.url, `${db.name}_shadow`), rootUrl: adminUrl(),
});

test.before(async () => {
  first = await freshDatabase();
  second = await freshDatabase();
  folder = join(mkdtempSync(join(tmpdir(), 'commit-upgrade-')), 'migrations');
});
test.after(async () => {
  for (const db of [first, second]) {
    if (!db) continue;
    await dropDatabase(adminUrl(), `${db.name}_shadow`);
    await db.close();
  }
  rmSync(join(folder, '..'), { recursive: true, force: true });
});

/**
 * Makes the committed engine look like one an older modelapi wrote (another fingerprint on its unit line), and
 * re-signs graphile-migrate's hash chain, as if the folder had been committed before the upgrade.
 */
function olderEngine(): void {
  let previous: string | null = null;
  for (const f of files()) {
    const path = join(committedDir(), f);
    const text = readFileSync(path, 'utf8');
    const split = text.indexOf('\n\n');
    const headers = text.slice(0, split).split('\n');
    let body = text.slice(split + 2);
    if (f === files()[0]) body = body.replace(/^-- unit engine [0-9a-f]{16}$/m, '-- unit engine 0000000000000000');
    const hash = calculateHash(body, previous);
    const kept = headers.filter((h) => !/^--! (Previous|Hash):/.test(h));
    chmodSync(path, 0o644);
    writeFileSync(path, [`--! Previous: ${previous ?? '-'}`, `--! Hash: ${hash}`, ...kept].join('\n') + '\n\n' + body);
    previous = hash;
  }
}

test('after an engine upgrade the next commit is the new engine, proven against the chain', async () => {
  assert.equal((await commit(first)).length, 2, 'engine and model');
  olderEngine();
  assert.match(readFileSync(join(committedDir(), files()[0]!), 'utf8'), '-- unit engine 0000000000000000');
  await migrateDatabase({ connectionString: second.url, migrationsFolder: folder }); // the chain as committed, re-signed
  const added = await commit(second);
  assert.equal(added, ['000003-engine.sql'], 'the new engine, as its own migration; the model is unchanged');
  assert.match(readFileSync(join(committedDir(), added[0]!), 'utf8'), /^-- unit engine [0-9a-f]{16}$/m);
});

test.run();
