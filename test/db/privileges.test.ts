// What the gateway's login and the request roles may run past row-level security: the SECURITY DEFINER
// functions each can execute are a known list, and none of them takes SQL text from its caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, 'examples/billing.model.json');
});
test.after(async () => db?.close());

/** The definer functions `role` may execute (its own privileges, PUBLIC's, and what it inherits), in schemas it may use. */
async function definers(role: string): Promise<string[]> {
  const rows = await db.sql`select p.oid::regprocedure::text as f from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prosecdef and n.nspname in ('api', 'lib', 'app', 'auth', 'meta')
      and has_function_privilege(${role}, p.oid, 'EXECUTE') and has_schema_privilege(${role}, n.oid, 'USAGE') order by 1`;
  return rows.map((r) => r.f as string);
}

test('the gateway\'s login runs no definer function but the upload intents and its own bookkeeping (files, idempotency)', async () => {
  const own = (await definers('authenticator')).filter((f) => !/^api\.upload_(intent|prepare)\(|^lib\.(files_|idempotency_)/.test(f));
  assert.equal(own, [], 'lib.row_exists ran SQL text from its caller as the migration\'s owner (a superuser) and was open to every role');
});

test('the request roles run the compiled per-table checks, the upload intents and lib.row_exists, which their triggers call', async () => {
  for (const role of ['anon', 'authenticated']) {
    const other = (await definers(role)).filter((f) => !/^api\.upload_(intent|prepare)\(|^app\.[a-z_]+_(exists|failing|files|files_gone)\(|^lib\.row_exists\(/.test(f));
    assert.equal(other, [], role);
  }
});

test('lib.row_exists reads its key type as a type name: SQL in it is an error, not a query run as the owner', async () => {
  const asAuthenticated = (pkType: string) => db.sql.begin(async (tx) => {
    await tx`set local role authenticated`;
    return (await tx`select lib.row_exists('customers', 'id', ${pkType}, 'nope', false) as found`)[0]!.found;
  });
  assert.is(await asAuthenticated('character varying(255)'), false);
  const injected = await asAuthenticated('text OR (SELECT count(*) FROM pg_authid) > 0').then((found) => `answered ${found}`, (err: { code?: string }) => err.code);
  assert.is(injected, '42601', 'a syntax error naming the type, not true');
});

test.run();
