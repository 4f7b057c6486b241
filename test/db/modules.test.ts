// Semantic modules enforced in SQL (spec 2.4, 2.6, table 3.2): Version, timestamps, Email, Password,
// Status initialStatuses, Owner and the revision token, written with plain SQL as the request roles.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { asRole, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = {
  api: testApi('mods'),
  entities: {
    Account: {
      collection: 'accounts',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        email: { type: 'String', unique: true, modules: { Email: {} } },
        password: { type: 'String', writeOnly: true, modules: { Password: {} } },
        owner_id: { type: 'String', readOnly: true, modules: { Owner: {} } },
        created_at: { type: 'DateTime', readOnly: true, modules: { CreatedTimestamp: {} } },
        updated_at: { type: 'DateTime', readOnly: true, modules: { UpdatedTimestamp: {} } },
      },
    },
    Doc: {
      collection: 'docs',
      properties: {
        id: { type: 'String', primary: true, immutable: true },
        title: { type: 'String' },
        state: { type: 'String', enum: ['draft', 'review', 'live'], defaultValue: 'draft', modules: { Status: { initialStatuses: ['draft', 'review'] } } },
        rev: { type: 'Number', modules: { Version: {} } },
      },
    },
  },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

const as = (fn: (tx: any) => Promise<any>, claims: Record<string, unknown> = { sub: 'u1' }): Promise<any> => asRole<any>(db.sql, 'authenticated', claims, fn);
async function error(fn: (tx: any) => Promise<unknown>): Promise<any> {
  try { await as(fn); } catch (err) { return err; }
  assert.unreachable('should have failed');
}

test('3.2 create: version is 1 whatever the client supplied', async () => {
  const [d] = await as((tx) => tx`insert into app.docs (id, title, rev) values ('d1', 't', 42) returning rev`);
  assert.is(d!.rev, 1);
});

test('3.2 update: version n becomes n+1; a version written by the client is not the new version', async () => {
  const [a] = await as((tx) => tx`update app.docs set title = 'u' where id = 'd1' returning rev`);
  assert.is(a!.rev, 2);
  const [b] = await as((tx) => tx`update app.docs set rev = 100 where id = 'd1' returning rev`);
  assert.is(b!.rev, 3);
  const [c] = await as((tx) => tx`update app.docs set rev = 1 where id = 'd1' returning rev`);
  assert.is(c!.rev, 4, 'it cannot be rolled back either');
});

test('3.2 stale expected version: the guarded update matches no row and the version stays n', async () => {
  const rows = await as((tx) => tx`update app.docs set title = 'stale' where id = 'd1' and rev = 2 returning rev`);
  assert.is(rows.length, 0);
  const [d] = await db.sql`select rev, title from app.docs where id = 'd1'`;
  assert.equal({ ...d }, { rev: 4, title: 'u' });
});

test('Version: 20 concurrent updates from separate connections each add exactly one', async () => {
  await as((tx) => tx`insert into app.docs (id, title) values ('race', 'r')`);
  const clients = Array.from({ length: 20 }, () => postgres(db.url, { max: 1, onnotice: () => {} }));
  try {
    await Promise.all(clients.map((c, i) => asRole(c, 'authenticated', { sub: 'u1' }, (tx) => tx`update app.docs set title = ${'r' + i} where id = 'race'`)));
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  const [d] = await db.sql`select rev from app.docs where id = 'race'`;
  assert.is(d!.rev, 21);
});

test('Status: a new record starts in an initial status (default included); others are refused with PT422', async () => {
  const [def] = await as((tx) => tx`insert into app.docs (id) values ('s1') returning state`);
  assert.is(def!.state, 'draft');
  const [rev] = await as((tx) => tx`insert into app.docs (id, state) values ('s2', 'review') returning state`);
  assert.is(rev!.state, 'review');
  const err = await error((tx) => tx`insert into app.docs (id, state) values ('s3', 'live')`);
  assert.is(err.code, 'PT422');
  assert.equal(JSON.parse(err.detail), { property: 'state', rule: 'initialStatuses' });
  const nul = await error((tx) => tx`insert into app.docs (id, state) values ('s4', null)`);
  assert.is(nul.code, 'PT422');
  // Access rules, not the Status module, govern later moves: an update to a non-initial status is fine.
  const [live] = await as((tx) => tx`update app.docs set state = 'live' where id = 's1' returning state`);
  assert.is(live!.state, 'live');
});

test('Email: stored lowercase; invalid syntax refused by the <table>_<prop>_email check', async () => {
  const [a] = await as((tx) => tx`insert into app.accounts (email) values ('First.Last+Tag@Sub.Example.CO') returning email`);
  assert.is(a!.email, 'first.last+tag@sub.example.co');
  for (const bad of ['plain', 'a@b', 'a..b@example.com', '.a@example.com', 'a@-example.com', 'a b@example.com', 'a@example..com', `${'x'.repeat(65)}@example.com`]) {
    const err = await error((tx) => tx`insert into app.accounts (email) values (${bad})`);
    assert.is(err.code, '23514', bad);
    assert.is(err.constraint_name, 'accounts_email_email', bad);
  }
  // Lowercasing makes the unique property case-insensitive.
  const dup = await error((tx) => tx`insert into app.accounts (email) values ('FIRST.LAST+TAG@sub.example.co')`);
  assert.is(dup.code, '23505');
});

test('Password: salted bcrypt hash on write, never readable by the request roles', async () => {
  const [a] = await as((tx) => tx`insert into app.accounts (email, password) values ('pw@example.com', 'hunter22') returning id`);
  const [stored] = await db.sql`select password, extensions.crypt('hunter22', password) = password as ok from app.accounts where id = ${a!.id}`;
  assert.match(stored!.password, /^\$2a\$10\$/);
  assert.ok(stored!.ok, 'the hash verifies the original password');
  const [other] = await as((tx) => tx`insert into app.accounts (email, password) values ('pw2@example.com', 'hunter22') returning id`);
  const [hash2] = await db.sql`select password from app.accounts where id = ${other!.id}`;
  assert.is.not(hash2!.password, stored!.password, 'salted: equal passwords hash differently');
  for (const role of ['anon', 'authenticated'] as const) {
    try {
      await asRole(db.sql, role, (tx) => tx`select password from app.accounts`);
      assert.unreachable('password must not be readable');
    } catch (err: any) {
      assert.is(err.code, '42501', role);
    }
  }
  // Other columns stay readable; an update that does not touch the password keeps the hash.
  await as((tx) => tx`update app.accounts set email = 'pw@example.org' where id = ${a!.id}`);
  const [kept] = await db.sql`select password from app.accounts where id = ${a!.id}`;
  assert.is(kept!.password, stored!.password);
  await as((tx) => tx`update app.accounts set password = 'newpass1' where id = ${a!.id}`);
  const [changed] = await db.sql`select extensions.crypt('newpass1', password) = password as ok from app.accounts where id = ${a!.id}`;
  assert.ok(changed!.ok);
});

test('Owner: filled from the caller\'s sub claim; readOnly so it cannot be supplied or changed', async () => {
  const [a] = await as((tx) => tx`insert into app.accounts (email) values ('own@example.com') returning id, owner_id`, { sub: 'user-7' });
  assert.is(a!.owner_id, 'user-7');
  const [anon] = await asRole(db.sql, 'anon', (tx) => tx`insert into app.accounts (email) values ('anon@example.com') returning owner_id`);
  assert.is(anon!.owner_id, null);
  const err = await error((tx) => tx`insert into app.accounts (email, owner_id) values ('x@example.com', 'someone-else')`);
  assert.is(err.code, 'PT400');
  const upd = await error((tx) => tx`update app.accounts set owner_id = 'thief' where id = ${a!.id}`);
  assert.is(upd.code, 'PT400');
});

test('CreatedTimestamp is set once; UpdatedTimestamp on every write', async () => {
  const [a] = await as((tx) => tx`insert into app.accounts (email) values ('ts@example.com') returning id, created_at, updated_at`);
  assert.ok(a!.created_at instanceof Date);
  assert.equal(a!.updated_at, a!.created_at);
  await new Promise((r) => setTimeout(r, 20));
  const [b] = await as((tx) => tx`update app.accounts set email = 'ts2@example.com' where id = ${a!.id} returning created_at, updated_at`);
  assert.equal(b!.created_at, a!.created_at);
  assert.ok(b!.updated_at > a!.updated_at);
  const err = await error((tx) => tx`update app.accounts set created_at = now() - interval '1 day' where id = ${a!.id}`);
  assert.is(err.code, 'PT400');
});

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
