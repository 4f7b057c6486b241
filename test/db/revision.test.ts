// Every table's revision token and last-modified time, new on every write (the ETag where there is no Version).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asRole, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = {
  api: testApi('revs'),
  entities: { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true, immutable: true }, title: { type: 'String' } } } },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

const as = (fn: (tx: any) => Promise<any>): Promise<any> => asRole<any>(db.sql, 'authenticated', { sub: 'u1' }, fn);

test('every table keeps a revision token and last-modified time, new on every write', async () => {
  const [a] = await as((tx) => tx`insert into app.docs (id) values ('r1') returning _rev, _modified_at`);
  const [b] = await as((tx) => tx`update app.docs set title = 'x' where id = 'r1' returning _rev, _modified_at`);
  assert.match(a!._rev, /^[0-9a-f-]{36}$/);
  assert.is.not(b!._rev, a!._rev);
  assert.ok(b!._modified_at >= a!._modified_at);
  const [c] = await as((tx) => tx`update app.docs set _rev = ${a!._rev} where id = 'r1' returning _rev`);
  assert.is.not(c!._rev, a!._rev, 'a client cannot pin the revision token');
});

test.run();
