// A batch of large reads holds about MAX_BATCH_RESPONSE_BYTES, not many times it: its answers are kept as the text
// they came in (long texts of digits once made the exact-number parser build strings of ~32 bytes a character), and it
// stops at the operation that passes the limit, the ones after it never run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startApi, type RunningApi } from './support/server.ts';
import { testApi } from '../harness/fixtures.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const MODEL = {
  api: testApi('heavy'),
  entities: {
    Note: { collection: 'notes', properties: { id: { type: 'Number', primary: true, readOnly: true }, body: { type: 'String', long: true } } },
  },
};
/** Each big note's body: digits, as a probe sent (text that looks like numbers). */
const BIG = '0123456789'.repeat(90_000);
/** Three big notes' answers fit, a fourth does not. */
const MAX_ANSWER = 3 * BIG.length + 100_000;

let api: RunningApi;
test.before(async () => { api = await startApi(MODEL, { limits: { maxBatchResponseBytes: MAX_ANSWER } }); });
test.after(async () => { await api?.close(); });

const lastId = async () => Number((await api.db.sql`select last_value from app.notes_id_seq`)[0]!.last_value);

test('a batch holds about the bytes of its answers, and stops at the operation past MAX_BATCH_RESPONSE_BYTES; the ones after it never run', async () => {
  const big = [];
  for (let i = 0; i < 3; i++) big.push(Number((await api.db.sql`insert into app.notes (body) values (${BIG}) returning id`)[0]!.id));
  const small = Number((await api.db.sql`insert into app.notes (body) values ('small') returning id`)[0]!.id);
  const sequence = await lastId();
  // Operation 4 waits for the small note's row, which this test holds: meanwhile the batch holds operations 1 to 3.
  const holder = await api.db.sql.reserve();
  await holder`begin`;
  await holder`select id from app.notes where id = ${small} for update`;
  gc();
  const before = process.memoryUsage().heapUsed;
  const reply = api.post('/batch', { operations: [
    ...big.map((id) => ({ method: 'GET', path: `/notes/${id}` })),
    { method: 'PATCH', path: `/notes/${small}`, body: { body: 'changed' } },
    { method: 'GET', path: `/notes/${big[0]}` },
    { method: 'POST', path: '/notes', body: { body: 'never written' } },
  ] });
  try {
    while ((await api.db.sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`).length === 0) {
      await new Promise((r) => setTimeout(r, 20));
    }
    gc();
    const held = process.memoryUsage().heapUsed - before;
    assert.ok(held < 3 * (3 * BIG.length), `while three answers of ${BIG.length} bytes are kept the heap holds ${held} bytes more`);
  } finally {
    await holder`rollback`;
    holder.release();
  }
  const r = await reply;
  assert.is(r.status, 413, r.text.slice(0, 300));
  assert.is(r.body.code, 'E_PAYLOAD_TOO_LARGE');
  assert.match(r.body.detail, `more than ${MAX_ANSWER} bytes at operation 5 (MAX_BATCH_RESPONSE_BYTES)`);
  assert.is(await lastId(), sequence, 'operation 6 (a create) never ran: its key was never drawn');
  assert.is((await api.db.sql`select body from app.notes where id = ${small}`)[0]!.body, 'small', 'rolled back');
});

test('within the limit, the answer carries each body as written, and a reference to a big one still resolves', async () => {
  const [row] = await api.db.sql`insert into app.notes (body) values (${'12345678901234567890 '.repeat(1000)}) returning id`;
  const r = await api.post('/batch', { operations: [
    { method: 'GET', path: `/notes/${row!.id}` },
    { method: 'POST', path: '/notes', body: { body: '$1.data.body' } },
  ] });
  assert.is(r.status, 200, r.text.slice(0, 300));
  assert.equal(r.body.results.map((x: { status: number }) => x.status), [200, 201]);
  assert.is(r.body.results[1].body.data.body, r.body.results[0].body.data.body);
});

test.run();
