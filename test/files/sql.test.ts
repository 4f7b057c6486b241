// The file rules in PostgreSQL itself, whoever writes: a block needs the caller's reserved, unused intent;
// the request roles never reach the intents or the outbox; triggers follow the model on migration.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = (withFile: boolean) => ({
  api: testApi('filesql'),
  entities: {
    Doc: {
      collection: 'docs',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        title: { type: 'String' },
        ...(withFile ? { scan: { type: 'Binary', modules: { FileURL: { maxSizeInBytes: 1000 } } } } : {}),
      },
    },
  },
});

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model(true));
});
test.after(async () => db?.close());

const claims = { sub: 'u1' };
const call = (fn: string, args: unknown, who: object = claims) =>
  db.sql`select api.dispatch('authenticated', ${JSON.stringify(who)}::text::jsonb, null, ${fn}, ${JSON.stringify(args)}::text::jsonb) as r`.then((rows) => rows[0]!.r);
async function refusal(p: Promise<unknown>): Promise<{ code: string; detail: any }> {
  try {
    await p;
  } catch (err) {
    const e = err as postgres.PostgresError;
    return { code: e.code, detail: e.detail ? JSON.parse(e.detail) : undefined };
  }
  throw new Error('expected a refusal');
}

test('a block with no intent behind it is refused, even written directly', async () => {
  const forged = { id: 'x', location: 'uploads/x', name: 'a.pdf', mime: 'application/pdf' };
  const r = await refusal(call('docs_create', { body: { title: 't', scan: forged } }));
  assert.equal([r.code, r.detail.code, r.detail.property], ['PT422', 'E_FILE_NOT_UPLOADED', 'scan']);
  const direct = await refusal(db.sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
    await tx`insert into app.docs (title, scan) values ('t', ${JSON.stringify(forged)}::text::jsonb)`;
  }));
  assert.is(direct.detail.code, 'E_FILE_NOT_UPLOADED');
});

test('the caller\'s intent attaches once, only at the location reserved for it, only by its owner', async () => {
  const { file_reference: ref } = await call('upload_intent', { filename: 'scan.pdf', contentType: 'Application/PDF' });
  const { data: [prepared] } = await call('upload_prepare', { tokens: [ref, 'unknown'] });
  assert.equal([prepared.token, prepared.mime, prepared.name], [ref, 'application/pdf', 'scan.pdf']);
  assert.equal((await call('upload_prepare', { tokens: [ref] }, { sub: 'u2' })).data, [], 'another caller sees nothing');
  const elsewhere = { id: ref, location: 'uploads/not-reserved', name: 'x', mime: 'application/pdf' };
  assert.is((await refusal(call('docs_create', { body: { scan: elsewhere } }))).detail.code, 'E_FILE_NOT_UPLOADED');
  const block = { id: ref, location: prepared.location, name: 'renamed', mime: 'text/html' };
  assert.is((await refusal(call('docs_create', { body: { scan: block } }, { sub: 'u2' }))).detail.code, 'E_FILE_NOT_UPLOADED');
  const doc = await call('docs_create', { body: { scan: block } });
  assert.is(doc.outbox, true, 'dispatch tells the gateway that files wait in the outbox (the tmp/ copy)');
  assert.equal(doc.data.scan, { id: ref, location: prepared.location, name: 'scan.pdf', mime: 'application/pdf' }, 'name and type come from the intent');
  assert.is((await refusal(call('docs_create', { body: { scan: block } }))).detail.code, 'E_FILE_NOT_UPLOADED', 'used');
  const outbox = await db.sql`select location, token from lib.file_outbox order by id`;
  assert.ok(outbox.every((r) => r.location !== prepared.location), 'the reservation is gone');
  assert.ok(outbox.some((r) => String(r.location).startsWith('tmp/')), 'the tmp/ object is queued for deletion');
  const kept = await call('docs_patch', { id: doc.id, body: { title: 'kept', scan: { id: ref } } });
  assert.equal(kept.data.scan, doc.data.scan, '{id} keeps the file the record holds');
  assert.is(kept.outbox, undefined, 'a write that queues nothing: no drain');
  assert.is((await refusal(call('docs_patch', { id: doc.id, body: { scan: { id: 'other' } } }))).detail.code, 'E_FILE_NOT_UPLOADED');
  assert.is((await call('docs_delete', { id: doc.id })).outbox, true, 'the deleted record\'s file waits in the outbox');
  assert.ok((await db.sql`select 1 from lib.file_outbox where location = ${prepared.location}`).length === 1, 'a deleted record\'s file is queued');
  assert.is((await db.sql`select count(*)::int as n from lib.uploads where token = ${ref}`)[0]!.n, 0, 'its intent goes with it');
});

test('request roles reach neither intents nor outbox; the gateway\'s login role runs the worker functions', async () => {
  for (const role of ['anon', 'authenticated']) {
    for (const statement of ['select * from lib.uploads', 'select * from lib.file_outbox', 'select lib.files_sweep()',
      'select * from lib.files_due(now(), 1)', `select lib.discard_file('uploads/x')`, `select lib.claim_file('p', '{}')`]) {
      const r = await refusal(db.sql.begin(async (tx) => {
        await tx.unsafe(`set local role ${role}`);
        await tx.unsafe(statement);
      }));
      assert.is(r.code, '42501', `${role}: ${statement}`);
    }
  }
  await db.sql.begin(async (tx) => {
    await tx.unsafe('set local role authenticator');
    await tx`select * from lib.files_due(now() - interval '1 day', 1)`;
    await tx`select lib.files_sweep()`;
  });
  const anon = await refusal(db.sql`select api.dispatch('anon', '{}', null, 'upload_intent', '{"filename":"a","contentType":"a/b"}')`);
  assert.is(anon.code, 'PT401');
});

test('a migration that removes the last file property removes the triggers; adding it back restores them', async () => {
  const triggers = async () => (await db.sql`select tgname from pg_trigger where tgrelid = 'app.docs'::regclass and tgname like 'files%' order by 1`).map((r) => r.tgname);
  assert.equal(await triggers(), ['files', 'files_gone']);
  const intents = async () => (await db.sql`select count(*)::int as n from lib.uploads`)[0]!.n;
  const before = await intents();
  await db.sql`delete from app.docs`;
  await installModel(db, model(false));
  assert.equal(await triggers(), []);
  await installModel(db, model(true));
  assert.equal(await triggers(), ['files', 'files_gone']);
  assert.is(await intents(), before, 'intents survive migrations');
});

test.run();
