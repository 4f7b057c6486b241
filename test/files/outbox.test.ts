// The file outbox with several gateways: two workers draining one outbox delete every object exactly
// once; a worker that dies after claiming rows loses nothing (its rows come back after the lease).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { Outbox } from '../../server/files/outbox.ts';
import type { Storage } from '../../server/files/storage.ts';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = {
  api: testApi('outbox'),
  entities: { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, scan: { type: 'Binary', modules: { FileURL: {} } } } } },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

/** A storage that only counts deletions (the outbox is what is under test, not a driver). */
function countingStorage(deleted: Map<string, number>): Storage {
  const no = async () => { throw new Error('not used'); };
  return {
    driver: 'local', signPut: no, signGet: no, head: no, copy: no,
    delete: async (key) => {
      await new Promise((r) => setTimeout(r, Math.random() * 3)); // interleave the two workers
      deleted.set(key, (deleted.get(key) ?? 0) + 1);
    },
  };
}

const queue = (n: number, prefix: string) =>
  db.sql`insert into lib.file_outbox (location) select ${prefix} || i from generate_series(1, ${n}::int) i`;

test('two gateways draining one outbox at once delete each of 300 objects exactly once', async () => {
  await queue(300, 'uploads/both-');
  const deleted = new Map<string, number>();
  const pools = [postgres(db.url, { max: 3, onnotice: () => {} }), postgres(db.url, { max: 3, onnotice: () => {} })];
  try {
    const workers = pools.map((sql) => new Outbox(sql, countingStorage(deleted), Date.now, (m, e) => { throw new Error(`${m}: ${e}`); }));
    await Promise.all(workers.flatMap((w) => [w.drain(), w.drain()]));
    await Promise.all(workers.map((w) => w.drain()));
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
  const mine = [...deleted].filter(([k]) => k.startsWith('uploads/both-'));
  assert.is(mine.length, 300);
  assert.ok(mine.every(([, n]) => n === 1), `deleted more than once: ${mine.filter(([, n]) => n > 1).map(([k]) => k).join(', ')}`);
  assert.is((await db.sql`select count(*)::int as n from lib.file_outbox`)[0]!.n, 0);
});

test('a gateway that dies after claiming rows loses nothing: the rows stay, and come back after the lease', async () => {
  await queue(5, 'uploads/crash-');
  const claimed = await db.sql`select * from lib.files_due(now(), 50)`; // claimed, then the worker "dies"
  assert.is(claimed.length, 5);
  assert.is((await db.sql`select count(*)::int as n from lib.file_outbox`)[0]!.n, 5, 'the rows are still there');
  const deleted = new Map<string, number>();
  const early = new Outbox(db.sql, countingStorage(deleted), Date.now, () => {});
  assert.is((await early.drain()).deleted, 0, 'leased rows are not taken again at once');
  const later = new Outbox(db.sql, countingStorage(deleted), () => Date.now() + 6 * 60_000, () => {});
  assert.is((await later.drain()).deleted, 5, 'after the lease another drain deletes them');
  assert.is((await db.sql`select count(*)::int as n from lib.file_outbox`)[0]!.n, 0);
});

test.run();
