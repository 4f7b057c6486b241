// What the gateway's login and the request roles may run past row-level security: the SECURITY DEFINER
// functions each can execute are a known list, none takes SQL or a type from its caller, and none lets a
// session's own temporary objects (a domain shadowing `text`) run inside it as the owner.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

let billing: TestDatabase;
let publishing: TestDatabase;
test.before(async () => {
  billing = await freshDatabase();
  await installModel(billing, 'examples/billing.model.json');
  publishing = await freshDatabase();
  await installModel(publishing, 'examples/publishing.model.json'); // with api.identity: the auth_* definers
});
test.after(async () => { await billing?.close(); await publishing?.close(); });

/** The definer functions `role` may execute (its own privileges, PUBLIC's, and what it inherits), in schemas it may use. */
async function definers(db: TestDatabase, role: string): Promise<string[]> {
  const rows = await db.sql`select p.oid::regprocedure::text as f from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where p.prosecdef and n.nspname in ('api', 'lib', 'app', 'auth', 'meta')
      and has_function_privilege(${role}, p.oid, 'EXECUTE') and has_schema_privilege(${role}, n.oid, 'USAGE') order by 1`;
  return rows.map((r) => r.f as string);
}

test('the gateway\'s login runs no definer function but the upload intents and its own bookkeeping (files, idempotency, the change log\'s pruning, its streams\' pages, webhooks)', async () => {
  for (const db of [billing, publishing]) {
    const own = (await definers(db, 'authenticator')).filter((f) => !/^api\.upload_(intent|prepare)\(|^lib\.(files_|idempotency_|changes_(prune|state|fresh)\(|[a-z_]+_change_records\(|webhook_)/.test(f));
    assert.equal(own, [], 'lib.row_exists ran SQL text from its caller as the owner; api.auth_* were open to PUBLIC');
  }
});

test('the request roles run the compiled per-table checks, the upload intents, sign-in, the changes and versions they may read, lib.row_exists (their triggers) and lib.organization_rows (estimates)', async () => {
  for (const db of [billing, publishing]) {
    for (const role of ['anon', 'authenticated']) {
      const other = (await definers(db, role)).filter((f) => !/^api\.(upload_(intent|prepare)|auth_(token|refresh|logout))\(|^app\.[a-z_]+_(exists|failing|refusal|files|files_gone|stakeholder_keys|touch_owner|changes|versions)\(|^lib\.(row_exists|organization_rows)\(/.test(f));
      assert.equal(other, [], role);
    }
  }
});

test('every definer searches pg_catalog, then pg_temp last: a session\'s domain named text or jsonb never runs inside one', async () => {
  for (const db of [billing, publishing]) {
    const loose = await db.sql`select p.oid::regprocedure::text as f from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where p.prosecdef and n.nspname in ('api', 'lib', 'app', 'auth', 'meta')
        and not coalesce('search_path=pg_catalog, pg_temp' = any (p.proconfig), false)`;
    assert.equal(loose.map((r) => r.f), []);
  }
  // The attack: a domain in pg_temp named like a type the definer declares, whose CHECK is the caller's own code.
  const attempt = await publishing.sql.begin(async (tx) => {
    await tx`set local role authenticated`;
    await tx.unsafe(`create function pg_temp.pwn(v text) returns boolean language plpgsql as $f$ begin
      raise exception 'PWNED as %', current_user; end $f$`);
    await tx.unsafe('create domain pg_temp.text as pg_catalog.text check (pg_temp.pwn(value))');
    await tx.unsafe('create domain pg_temp.jsonb as pg_catalog.jsonb check (pg_temp.pwn(value::pg_catalog.text))');
    await tx`select set_config('request.jwt.claims', '{"sub":"u1"}', true)`;
    return tx`select api.upload_intent('{"filename":"a.txt","contentType":"text/plain"}'::pg_catalog.jsonb) as r`.then(() => 'ran', (err: Error) => err.message);
  }).catch((err: Error) => err.message);
  assert.is(attempt, 'ran', 'the definer ran with pg_catalog\'s types, not the session\'s (it answered "PWNED as postgres")');
});

test('lib.row_exists takes a key or unique column of an app table, its type from the catalog, and the caller\'s organization', async () => {
  const asCaller = (org: string, tbl: string, col: string, key: string) => billing.sql.begin(async (tx) => {
    await tx`set local role authenticated`;
    await tx`select set_config('request.jwt.claims', ${JSON.stringify({ sub: 'u1', org })}, true)`;
    return (await tx`select lib.row_exists(${tbl}, ${col}, ${key}) as found`)[0]!.found;
  }).catch((err: Error) => err.message);
  // As the owner, write rules off (they would give the row a uuid key and the caller's organization).
  await billing.sql.unsafe(`set session_replication_role = replica; insert into app.customers (id, name, organization_id) values ('c-1', 'Acme', 'o1'); set session_replication_role = origin;`);
  assert.is(await asCaller('o1', 'customers', 'id', 'c-1'), true);
  assert.is(await asCaller('o2', 'customers', 'id', 'c-1'), false, 'another organization\'s key is a missing one');
  assert.match(String(await asCaller('o1', 'customers', 'name', 'Acme')), 'not a key or unique column', 'no lookups of any column past the policies');
  assert.match(String(await asCaller('o1', 'customers" where true --', 'id', 'x')), 'does not exist');
});

test.run();
