// The records the access table talks about, written through api.dispatch as the personas themselves
// (so owners, authors and organizations are set the way the API sets them); returns the @name keys.
import type postgres from 'postgres';
import { BILLING_PERSONAS } from './billing-cases.ts';
import { PUBLISHING_PERSONAS, type Claims } from './cases.ts';
import { resolver } from './route.ts';

type Ids = Record<string, string>;

function caller(sql: postgres.Sql) {
  return async (claims: Claims | null, fn: string, args: Record<string, unknown>): Promise<any> => {
    const [row] = await sql`select api.dispatch(${claims ? 'authenticated' : 'anon'}, ${sql.json((claims ?? {}) as postgres.JSONValue)},
      '127.0.0.1', ${fn}, ${sql.json(args as postgres.JSONValue)}) as r`;
    return row!.r;
  };
}

/** Personas with their @sub resolved (users must exist first). */
export function personas(all: Record<string, Claims | null>, ids: Ids): Record<string, Claims | null> {
  const { deep } = resolver(ids);
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v && deep(v)]));
}

/**
 * Publishing: users; PA (owner ann, member bob) and PB (owner dan, member cat); posts of PA by bob
 * (a-draft, a-review in_review, a-pub/a-del published, a-arch archived, a-tmp, a-pubme drafts), of PB
 * by dan (b-draft, b-pub published) and cat (b-cat); tags news and tips (a-pub tagged news); comment c1 by ann.
 */
export async function seedPublishing(sql: postgres.Sql): Promise<Ids> {
  const call = caller(sql);
  const ids: Ids = {};
  for (const name of ['adm', 'ann', 'bob', 'cat', 'dan', 'rev', 'eve']) {
    ids[name] = (await call(null, 'users_create', { body: { email: `${name}@people.example` } })).data.id;
  }
  const who = personas(PUBLISHING_PERSONAS, ids);
  const PA: string = (await call(who.ann!, 'projects_create', { body: { name: 'PA' } })).data.id;
  const PB: string = (await call(who.dan!, 'projects_create', { body: { name: 'PB' } })).data.id;
  Object.assign(ids, { PA, PB });
  await call(who.ann!, 'projects_members_link', { id: PA, target: ids.bob, body: { role: 'editor', status: 'active' } });
  await call(who.dan!, 'projects_members_link', { id: PB, target: ids.cat, body: { role: 'editor', status: 'active' } });
  const post = (as: Claims, id: string, project: string, status?: string) =>
    call(as, 'posts_create', { body: { id, project_id: project, title: id, ...(status ? { status } : {}) } });
  for (const id of ['a-draft', 'a-pub', 'a-arch', 'a-del', 'a-tmp', 'a-pubme']) await post(who.bob!, id, PA);
  await post(who.bob!, 'a-review', PA, 'in_review');
  for (const id of ['b-draft', 'b-pub']) await post(who.dan!, id, PB);
  await post(who.cat!, 'b-cat', PB);
  for (const [id, status] of [['a-pub', 'published'], ['a-del', 'published'], ['b-pub', 'published'], ['a-arch', 'archived']]) {
    await call(who.adm!, 'posts_patch', { id, body: { status } });
  }
  for (const slug of ['news', 'tips']) await call(who.ann!, 'tags_create', { body: { slug, label: slug } });
  await call(who.adm!, 'posts_tags_link', { id: 'a-pub', target: 'news', body: {} });
  ids.c1 = String((await call(who.ann!, 'comments_create', { body: { post_id: 'a-pub', body: 'First' } })).data.id);
  return ids;
}

/**
 * Billing: C1 with invoices INV-1001…1010 in o1 (1002 paid, 1003 void; 1005, 1007, 1008, 1010 soft-deleted
 * drafts, 1006 a soft-deleted paid one) and C2 with INV-2001 in o2.
 */
export async function seedBilling(sql: postgres.Sql): Promise<Ids> {
  const call = caller(sql);
  const who = BILLING_PERSONAS;
  const ids: Ids = {};
  const C1: string = (await call(who.owner!, 'customers_create', { body: { name: 'C1' } })).data.id;
  const C2: string = (await call(who.o2!, 'customers_create', { body: { name: 'C2' } })).data.id;
  Object.assign(ids, { C1, C2 });
  for (let n = 1001; n <= 1010; n++) await call(who.owner!, 'invoices_create', { body: { number: `INV-${n}`, customer_id: C1, amount: 10 } });
  await call(who.o2!, 'invoices_create', { body: { number: 'INV-2001', customer_id: C2, amount: 20 } });
  for (const [n, status] of [[1002, 'paid'], [1003, 'void'], [1006, 'paid']] as const) {
    await call(who.owner!, 'invoices_patch', { id: `INV-${n}`, body: { status } });
  }
  for (const n of [1005, 1007, 1008, 1010]) await call(who.acct!, 'invoices_delete', { id: `INV-${n}` });
  // No scenario deletes a paid invoice; the superuser does, as an operator would.
  await sql`update app.invoices set deleted_at = now() where number = 'INV-1006'`;
  return ids;
}
