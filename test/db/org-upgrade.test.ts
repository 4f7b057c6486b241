// A database an earlier version installed under OrganizationRBAC (keys, unique values and references global;
// join and sub-resource rows without organization_id) migrates to keys led by organization_id, rows kept:
// the join and sub-resource rows take their owner's organization.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

const member = { label: 'Members', predicate: { style: 'and', children: [{ type: 'matchOrganizationRole', roles: ['any'] }] } };
const model = {
  api: { slug: 'orgup', version: 'v1', title: 'Org upgrade', docsUrl: 'https://docs.example.com', strategy: 'OrganizationRBAC', scenarios: [member] },
  entities: {
    Invoice: {
      collection: 'invoices',
      properties: { number: { type: 'String', primary: true, immutable: true }, email: { type: 'String', unique: true } },
      relations: { tags: { kind: 'manyToMany', entity: 'Tag' }, details: { kind: 'oneToOne', properties: { memo: { type: 'String' } } } },
    },
    Tag: { collection: 'tags', properties: { slug: { type: 'String', primary: true, immutable: true } } },
  },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

const definitions = async () => Object.fromEntries((await db.sql`select conname, pg_get_constraintdef(oid) as def from pg_constraint
  where connamespace = 'app'::regnamespace and contype in ('p', 'u', 'f') order by 1`).map((r) => [r.conname, r.def]));

test('global keys and owner-less join and sub-resource rows become the organization\'s, rows kept', async () => {
  const current = await definitions();
  // What the earlier version left: keys and unique values alone, join and sub-resource tables without organization_id.
  await db.sql.unsafe(`
    ALTER TABLE app.invoices_tags DROP COLUMN organization_id CASCADE;
    ALTER TABLE app.invoices_details DROP COLUMN organization_id CASCADE;
    ALTER TABLE app.invoices DROP CONSTRAINT invoices_pkey CASCADE, DROP CONSTRAINT invoices_email_key;
    ALTER TABLE app.invoices ADD CONSTRAINT invoices_pkey PRIMARY KEY (number), ADD CONSTRAINT invoices_email_key UNIQUE (email);
    ALTER TABLE app.tags DROP CONSTRAINT tags_pkey CASCADE;
    ALTER TABLE app.tags ADD CONSTRAINT tags_pkey PRIMARY KEY (slug);
    ALTER TABLE app.invoices_tags ADD CONSTRAINT invoices_tags_pkey PRIMARY KEY (invoice_number, tag_slug),
      ADD CONSTRAINT invoices_tags_invoice_number_fkey FOREIGN KEY (invoice_number) REFERENCES app.invoices (number) ON DELETE CASCADE,
      ADD CONSTRAINT invoices_tags_tag_slug_fkey FOREIGN KEY (tag_slug) REFERENCES app.tags (slug) ON DELETE CASCADE;
    ALTER TABLE app.invoices_details ADD CONSTRAINT invoices_details_pkey PRIMARY KEY (invoice_number),
      ADD CONSTRAINT invoices_details_invoice_number_fkey FOREIGN KEY (invoice_number) REFERENCES app.invoices (number) ON DELETE CASCADE;
    SET session_replication_role = replica;
    INSERT INTO app.invoices (number, organization_id) VALUES ('INV-1', 'o1'), ('INV-2', 'o2');
    INSERT INTO app.tags (slug, organization_id) VALUES ('hot', 'o1'), ('cold', 'o2');
    INSERT INTO app.invoices_tags (invoice_number, tag_slug) VALUES ('INV-1', 'hot'), ('INV-2', 'cold');
    INSERT INTO app.invoices_details (invoice_number, memo) VALUES ('INV-2', 'kept');
    SET session_replication_role = origin;`);
  await installModel(db, { ...model, api: { ...model.api, title: 'Org upgrade, again' } });
  assert.equal(await definitions(), current, 'the keys, unique values and references of this version');
  assert.equal([...await db.sql`select invoice_number, tag_slug, organization_id from app.invoices_tags order by 1`].map((r) => ({ ...r })), [
    { invoice_number: 'INV-1', tag_slug: 'hot', organization_id: 'o1' },
    { invoice_number: 'INV-2', tag_slug: 'cold', organization_id: 'o2' },
  ]);
  assert.equal([...await db.sql`select invoice_number, memo, organization_id from app.invoices_details`].map((r) => ({ ...r })),
    [{ invoice_number: 'INV-2', memo: 'kept', organization_id: 'o2' }]);
});

test.run();
