// Golden files of the emitted SQL: for each tiny model under golden/, what the compiler writes after the
// fixed kit (tables, rules, policies, compiled api.* functions) must equal golden/<name>.sql, so a change
// in the generated SQL shows in review. `UPDATE_GOLDEN=1 npm test -- test/compiler` rewrites them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateModel } from '../../compiler/model/validate.ts';
import { emitModelSql } from '../../compiler/emit.ts';
import { freshDatabase, installModel } from '../harness/db.ts';

const dir = fileURLToPath(new URL('./golden/', import.meta.url));
const models = readdirSync(dir).filter((f) => f.endsWith('.model.json')).sort();

test('there are golden models', () => {
  assert.ok(models.length >= 4, models.join(', '));
});

for (const file of models) {
  const name = file.replace('.model.json', '');
  test(`emitted SQL of ${name} matches golden/${name}.sql`, () => {
    const sql = emitModelSql(validateModel(JSON.parse(readFileSync(dir + file, 'utf8')))) + '\n';
    if (process.env.UPDATE_GOLDEN) writeFileSync(`${dir}${name}.sql`, sql);
    const expected = readFileSync(`${dir}${name}.sql`, 'utf8');
    assert.fixture(sql, expected);
  });
}

test('every golden model installs into PostgreSQL', async () => {
  for (const file of models) {
    const db = await freshDatabase();
    try {
      await installModel(db, JSON.parse(readFileSync(dir + file, 'utf8')));
    } finally {
      await db.close();
    }
  }
});

test.run();
