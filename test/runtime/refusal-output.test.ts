// A refused model change as `npm run migrate -- --model` and `npm start` print it (issue 14): PostgreSQL's message,
// detail and hint, each on its own line, and nothing else (no context, stack, SQL or graphile-migrate log); exit 1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmRun } from '../harness/child.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';
import { freePort } from '../harness/net.ts';

const model = (colors: string[]) => ({
  api: testApi('refusals'),
  entities: {
    Swatch: {
      collection: 'swatches',
      properties: { id: { type: 'String', primary: true }, color: { type: 'String', enum: colors } },
    },
  },
});

let db: TestDatabase;
let dir: string;
const file = (name: string, m: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(m));
  return path;
};

test.before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'refusal-output-'));
  const v1 = await npmRun('migrate', ['--model', file('v1.json', model(['red', 'blue'])), '--migrations', join(dir, 'migrations')], { DATABASE_URL: db.url });
  assert.is(v1.code, 0, v1.stderr);
  await db.sql`insert into app.swatches (id, color) values ('s1', 'blue')`;
});
test.after(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** stderr without npm's own warnings about its configuration. */
const ownLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'));

function onlyMessageDetailHint(stderr: string, message: RegExp, detail: RegExp | undefined, hint: RegExp) {
  const lines = ownLines(stderr);
  const expected = detail ? 3 : 2;
  assert.is(lines.length, expected, `exactly message${detail ? ', detail' : ''} and hint:\n${stderr}`);
  assert.match(lines[0]!, /^Migration refused: Refused: /);
  assert.match(lines[0]!, message);
  if (detail) assert.match(lines[1]!, /^ {2}detail: /), assert.match(lines[1]!, detail);
  assert.match(lines.at(-1)!, /^ {2}hint: /);
  assert.match(lines.at(-1)!, hint);
  for (const noise of [/where:/i, /CONTEXT/, /PL\/pgSQL/, /\bat .*\.(ts|js):\d+/, /graphile-migrate/, /ALTER TABLE app\.swatches ADD CONSTRAINT/]) {
    assert.not.match(stderr, noise, `no ${noise} in:\n${stderr}`);
  }
}

test('migrate --model: a narrowed enum that a row breaks prints message, detail and hint only', async () => {
  const run = await npmRun('migrate', ['--model', file('v2.json', model(['red'])), '--migrations', join(dir, 'migrations')], { DATABASE_URL: db.url });
  assert.is(run.code, 1, run.stdout + run.stderr);
  onlyMessageDetailHint(run.stderr, /the rule swatches_color_enum .* cannot be applied to app\.swatches: existing rows break it/, /violated by some row/, /Fix or remove those rows/);
  assert.not.match(run.stdout, 'Migrated');
  const [row] = await db.sql`select color from app.swatches where id = 's1'`;
  assert.is(row?.color, 'blue', 'nothing changed');
});

test('npm start: a type change it refuses prints message and hint only, and nothing is served', async () => {
  const run = await npmRun('start', ['--migrations', join(dir, 'migrations')], {
    DATABASE_URL: db.url, PORT: String(await freePort()), MODEL: file('v3.json', { ...model(['red', 'blue']), entities: { Swatch: { collection: 'swatches', properties: { id: { type: 'String', primary: true }, color: { type: 'Number' } } } } }),
  }, 120_000);
  assert.is(run.code, 1, run.stdout + run.stderr);
  onlyMessageDetailHint(run.stderr, /swatches\.color would change type from character varying\(255\) to numeric/, undefined, /ALTER TABLE app\.swatches ALTER COLUMN color TYPE numeric USING/);
  assert.not.match(run.stdout, 'Serving');
});

test.run();
