// Model changes that move rules between columns, over rows: a Password module added over plain text or
// removed over hashes (refused, saying what to run), a referenced unique value dropped with its reference, a key
// moved to another property, a type change of a column holding nothing, and refusals that name the breaking row.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

const api = { slug: 'rules', version: 'v1', title: 'Rule moves', docsUrl: 'https://docs.example.com', strategy: 'RBAC' };
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

const base = {
  api,
  entities: {
    Customer: {
      collection: 'customers',
      properties: {
        id: { type: 'String', primary: true, immutable: true },
        code: { type: 'String', unique: true },
        secret: { type: 'String', writeOnly: true },
        memo: { type: 'String' },
      },
    },
    Order: {
      collection: 'orders',
      properties: {
        id: { type: 'String', primary: true, immutable: true },
        cust_code: { type: 'String', references: 'Customer.code' },
      },
    },
  },
};
type Props = Record<string, any>;
interface M { api: typeof api; entities: { Customer: { collection: string; properties: Props }; Order: { collection: string; properties: Props } } }
const change = (edit: (m: M) => void): M => { const m = clone(base) as M; edit(m); return m; };
const withPassword = (m: M) => { m.entities.Customer.properties.secret.modules = { Password: {} }; };

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, base);
  await db.sql`insert into app.customers (id, code, secret) values ('c1', 'A', 'hunter2'), ('c2', 'B', null)`;
  await db.sql`insert into app.orders (id, cust_code) values ('o1', 'A')`;
});
test.after(async () => db?.close());

const customers = () => db.sql`select id, code, secret, memo from app.customers order by id`;

async function refusal(model: unknown): Promise<string> {
  const before = await customers();
  const err = await installModel(db, model).then(() => undefined, (e: any) => e);
  assert.ok(err, 'the migration should have been refused');
  assert.equal(await customers(), before, 'a refused migration changes no row');
  return `${err.message}\n${err.detail ?? ''}\n${err.hint ?? ''}`;
}

test('a Password module added over plain text is refused with the UPDATE that hashes it; after it, applied', async () => {
  const text = await refusal(change(withPassword));
  assert.match(text, 'Refused: the rule customers_secret_password');
  assert.match(text, 'these values are not (plain text?)');
  const update = /UPDATE "app"\."customers" SET .*\);/.exec(text)?.[0];
  assert.ok(update, text);
  await db.sql.unsafe(update!);
  await installModel(db, change(withPassword));
  const [row] = await db.sql`select extensions.crypt('hunter2', secret) = secret as matches from app.customers where id = 'c1'`;
  assert.is(row?.matches, true, 'the hash the hint made checks the old password');
});

test('a Password module removed while hashes are stored is refused (they would become readable); cleared, applied', async () => {
  const text = await refusal(base);
  assert.match(text, 'Refused: app.customers.secret is no longer a Password in the model, but 1 rows hold password hashes');
  assert.match(text, 'UPDATE app.customers SET secret = NULL;');
  await db.sql`update app.customers set secret = null`;
  await installModel(db, base);
  const [check] = await db.sql`select count(*)::int as n from pg_constraint where conname = 'customers_secret_password'`;
  assert.is(check?.n, 0);
});

test('a unique value another entity references, dropped with the reference: applied, rows kept', async () => {
  await installModel(db, change((m) => {
    delete m.entities.Customer.properties.code.unique;
    m.entities.Order.properties.cust_code = { type: 'String' };
  }));
  const left = await db.sql`select conname from pg_constraint where conname in ('customers_code_key', 'orders_cust_code_fkey')`;
  assert.equal([...left], []);
  assert.equal((await db.sql`select id, cust_code from app.orders`).map((r) => ({ ...r })), [{ id: 'o1', cust_code: 'A' }]);
  await installModel(db, base); // and back: the reference rests on the unique value again
  const [fk] = await db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'orders_cust_code_fkey'`;
  assert.match(fk!.def, 'REFERENCES app.customers(code)');
});

test('the key moved to another property: applied, rows kept, the old key column nullable', async () => {
  await installModel(db, change((m) => {
    m.entities.Customer.properties.id = { type: 'String', unique: true };
    m.entities.Customer.properties.code = { type: 'String', primary: true, immutable: true };
  }));
  const [pk] = await db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'customers_pkey'`;
  assert.is(pk!.def, 'PRIMARY KEY (code)');
  const [id] = await db.sql`select is_nullable from information_schema.columns where table_schema = 'app' and table_name = 'customers' and column_name = 'id'`;
  assert.is(id!.is_nullable, 'YES');
  assert.equal((await customers()).map((r) => r.id), ['c1', 'c2']);
  await installModel(db, base);
  const [back] = await db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'customers_pkey'`;
  assert.is(back!.def, 'PRIMARY KEY (id)');
});

test('any type change of a column that holds no value is applied; one holding values is still refused', async () => {
  await installModel(db, change((m) => { m.entities.Customer.properties.memo = { type: 'Number', web: { format: 'int32' }, defaultValue: 0 }; }));
  const [memo] = await db.sql`select data_type from information_schema.columns where table_schema = 'app' and table_name = 'customers' and column_name = 'memo'`;
  assert.is(memo!.data_type, 'integer');
  await db.sql`update app.customers set memo = 7`; // c1 and c2 now hold 7
  const text = await refusal(base);
  assert.match(text, 'Refused: customers.memo would change type from integer to character varying(255), which could change the 2 values it holds');
  await db.sql`update app.customers set memo = null`;
  await installModel(db, base);
});

test('a rule existing rows break names one of them', async () => {
  await db.sql`update app.customers set memo = 'same'`;
  const dup = await refusal(change((m) => { m.entities.Customer.properties.memo.unique = true; }));
  assert.match(dup, 'Refused: the rule customers_memo_key');
  assert.match(dup, 'Key (memo)=(same) is duplicated.');
});

test('soft-delete removed while records are soft-deleted: refused, saying they would be live again', async () => {
  await installModel(db, change((m) => { (m.entities.Customer as Record<string, unknown>).softDelete = true; }));
  await db.sql`update app.customers set deleted_at = now() where id = 'c2'`;
  const text = await refusal(base);
  assert.match(text, 'Refused: app.customers no longer soft-deletes, but 1 of its records are soft-deleted (deleted_at): without the column they would be live again');
  assert.match(text, 'DELETE FROM app.customers WHERE deleted_at IS NOT NULL;');
  await db.sql`update app.customers set deleted_at = null`;
  await installModel(db, base);
});

test('a strategy switched to organizations over rows without one: refused, saying what to fill', async () => {
  const member = { label: 'Members', predicate: { style: 'and', children: [{ type: 'matchOrganizationRole', roles: ['any'] }] } };
  const text = await refusal({ ...base, api: { ...api, strategy: 'OrganizationRBAC', scenarios: [member] } });
  assert.match(text, "Refused: the model's strategy now keeps every row of app.customers in an organization, and its 2 rows have none");
  assert.match(text, 'UPDATE app.customers SET organization_id =');
});

test('a wider integer format given back: applied while every value fits, refused naming how many do not', async () => {
  const wide = change((m) => { m.entities.Customer.properties.memo = { type: 'Number', web: { format: 'int64' } }; });
  await db.sql`update app.customers set memo = null`;
  await installModel(db, wide);
  await db.sql`update app.customers set memo = 5`;
  await installModel(db, change((m) => { m.entities.Customer.properties.memo = { type: 'Number', web: { format: 'int32' } }; }));
  await installModel(db, wide);
  await db.sql`update app.customers set memo = 3000000000 where id = 'c1'`;
  const text = await refusal(change((m) => { m.entities.Customer.properties.memo = { type: 'Number', web: { format: 'int32' } }; }));
  assert.match(text, 'Refused: customers.memo cannot become integer: 1 rows hold a value it cannot');
  await db.sql`update app.customers set memo = null`;
  await installModel(db, base);
});

test('a refusal about a join table names the relation it serves', async () => {
  const membership = { kind: 'manyToMany', entity: 'Order', modules: { Membership: { edge: { role: { enum: ['buyer'] } } } } };
  const linked = change((m) => { (m.entities.Customer as Record<string, unknown>).relations = { orders: membership }; });
  await installModel(db, linked);
  await db.sql`insert into app.customers_orders (customer_id, order_id, role) values ('c1', 'o1', 'buyer')`;
  const text = await refusal(change((m) => { (m.entities.Customer as Record<string, unknown>).relations = { orders: { kind: 'manyToMany', entity: 'Order' } }; }));
  assert.match(text, 'Refused: app.customers_orders.role (manyToMany Customer.orders -> Order) is no longer in the model but 1 rows hold a value in it');
  await db.sql`delete from app.customers_orders`;
  await installModel(db, base);
});

test.run();
