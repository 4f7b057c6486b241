// Change streams over the real gateway (design 9): a list URL asked for as text/event-stream sends each change its
// caller may read, as that caller's GET shows it; resumable by Last-Event-ID, reset past retention, across gateways.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testApi } from '../harness/fixtures.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { anotherGateway, startApi, type RunningApi } from './support/server.ts';
import { EventClient, type SseEvent } from './support/events.ts';

const WRITER = (sub: string) => ({ sub, roles: ['writer'] });
const READER = { sub: 'carol', roles: ['reader'] };

let api: RunningApi;
test.before(async () => {
  api = await startApi({
    api: { ...testApi('streams'), scenarios: [] },
    entities: {
      Shelf: {
        collection: 'shelves',
        properties: { id: { type: 'String', primary: true }, name: { type: 'String' } },
        scenarios: [{ label: 'Anyone signed in', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }] } }],
      },
      Tag: {
        collection: 'tags',
        properties: { id: { type: 'String', primary: true } },
        scenarios: [{ label: 'Anyone signed in', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }] } }],
      },
      Note: {
        collection: 'notes',
        softDelete: true,
        history: false, // pruned past the retention (the reset below); a kept history's rows would stay
        parent: { entity: 'Shelf', property: 'shelf_id' },
        properties: {
          id: { type: 'String', primary: true },
          shelf_id: { type: 'String', references: 'Shelf' },
          title: { type: 'String', web: { name: 'heading' } },
          status: { type: 'String', enum: ['draft', 'available'], defaultValue: 'draft', modules: { Status: { initialStatuses: ['draft', 'available'] } } },
          owner_id: { type: 'String', readOnly: true, modules: { Owner: {} } },
          version: { type: 'Number', modules: { Version: {} } },
        },
        relations: { tags: { kind: 'manyToMany', entity: 'Tag' } },
        scenarios: [{ label: 'Writers own their notes', predicate: { style: 'and', children: [
          { type: 'matchUserRole', roles: ['writer'] }, { type: 'matchResourceOwner' }] } }],
        actions: {
          list: { scenarios: [{ label: 'Readers see available notes', predicate: { style: 'and', children: [
            { type: 'matchUserRole', roles: ['reader'] }, { type: 'lifecycleStatus', allowedStatuses: ['available'] }] } }] },
          read: { scenarios: [{ label: 'Readers see available notes', predicate: { style: 'and', children: [
            { type: 'matchUserRole', roles: ['reader'] }, { type: 'lifecycleStatus', allowedStatuses: ['available'] }] } }] },
        },
      },
    },
  }, { limits: { maxStreamsPerCaller: 3, eventsHeartbeatMs: 200 } });
  const admin = await api.token({ sub: 'admin', roles: ['writer'] });
  for (const id of ['s1', 's2']) expectStatus(await api.post('/shelves', { id, name: id }, { token: admin }), 201);
  expectStatus(await api.post('/tags', { id: 't1' }, { token: admin }), 201);
});
test.after(async () => api?.close());

const streams: EventClient[] = [];
test.after.each(() => { for (const s of streams.splice(0)) s.close(); });

/** A stream of `path` for `claims`, once the hub has taken it in (its first id arrived). */
async function open(path: string, claims: Record<string, unknown> | null, headers: Record<string, string> = {}, on = api): Promise<EventClient> {
  const s = await EventClient.open(on.origin + on.basePath + path, claims ? await on.token(claims) : null, headers);
  streams.push(s);
  if (s.status === 200) await s.until(() => s.lastId !== undefined, 'the stream joined');
  return s;
}
const as = async (claims: Record<string, unknown>) => ({ token: await api.token(claims) });
const brief = (events: SseEvent[]) => events.map((e) => `${e.event} ${e.data.id}`);

test('created, updated, deleted, restored, linked and unlinked reach the owner; a stranger and a reader of drafts get nothing', async () => {
  const alice = await open('/notes', WRITER('alice'));
  const bob = await open('/notes', WRITER('bob'));
  const carol = await open('/notes', READER);
  assert.is(alice.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.match(alice.headers.get('vary') ?? '', /Accept/);
  const a = await as(WRITER('alice'));
  dataOf(await api.post('/notes', { id: 'n1', shelf_id: 's1', heading: 'One' }, a), 201);
  dataOf(await api.patch('/notes/n1', { heading: 'Uno' }, a));
  expectStatus(await api.del('/notes/n1', a), 204);
  dataOf(await api.post('/notes/n1/restore', undefined, a));
  await alice.count(4);
  assert.equal(brief(alice.events), ['created n1', 'updated n1', 'deleted n1', 'restored n1']);
  const [created, updated, deleted] = alice.events;
  assert.equal(created!.data, { collection: 'notes', id: 'n1', action: 'created', etag: '"1"', data: {
    id: 'n1', shelf_id: 's1', heading: 'One', status: 'draft', owner_id: 'alice', version: 1 } }, 'shaped as a GET: wire names, the ETag as the header says it');
  assert.is(updated!.data.data.heading, 'Uno');
  assert.is(deleted!.data.data, null);
  assert.ok(alice.events.every((e) => /^\d+-\d+$/.test(e.id!)), 'each event has its log position as id');
  // Links and unlinks of the note's relations, judged by the note as it is now.
  expectStatus(await api.put('/notes/n1/tags/t1', undefined, a), 201);
  expectStatus(await api.del('/notes/n1/tags/t1', a), 204);
  await alice.count(6);
  assert.equal(alice.events.slice(4).map((e) => [e.event, e.data.id, e.data.data]), [
    ['linked', 'n1', { relation: 'tags', target: 't1', edge: {} }], ['unlinked', 'n1', { relation: 'tags', target: 't1', edge: {} }]]);
  // bob writes a note of his own after alice's: his stream shows it, and nothing before it.
  dataOf(await api.post('/notes', { id: 'b1', shelf_id: 's1', heading: 'Bob' }, await as(WRITER('bob'))), 201);
  await bob.count(1);
  assert.equal(brief(bob.events), ['created b1'], 'alice\'s note and its links never reached bob');
  // The note becomes available: the reader gets it then, as an update.
  dataOf(await api.patch('/notes/n1', { status: 'available' }, a));
  await carol.count(1);
  assert.equal(brief(carol.events), ['updated n1'], 'nothing of the drafts, the note as it became readable');
  assert.is(carol.events[0]!.data.data.status, 'available');
  assert.equal(api.serverErrors, []);
});

test('filters, the parent of a nested path and include narrow a stream; embeds and paging are refused', async () => {
  const a = await as(WRITER('alice'));
  const available = await open('/notes?status=available', WRITER('alice'));
  const shelf2 = await open('/shelves/s2/notes?include=id,heading', WRITER('alice'));
  dataOf(await api.post('/notes', { id: 'f1', shelf_id: 's1', heading: 'draft on s1' }, a), 201);
  dataOf(await api.post('/notes', { id: 'f2', shelf_id: 's2', heading: 'draft on s2' }, a), 201);
  dataOf(await api.post('/notes', { id: 'f3', shelf_id: 's1', heading: 'available on s1', status: 'available' }, a), 201);
  await available.count(1);
  await shelf2.count(1);
  assert.equal(brief(available.events), ['created f3']);
  assert.equal(brief(shelf2.events), ['created f2']);
  assert.equal(shelf2.events[0]!.data.data, { id: 'f2', heading: 'draft on s2' });
  for (const path of ['/notes?page=2', '/notes?sort=heading', '/notes?include=shelf']) {
    const refused = await EventClient.open(api.origin + api.basePath + path, a.token);
    assert.is(refused.status, 400, path);
    assert.match(refused.headers.get('content-type') ?? '', /problem\+json/);
  }
  assert.equal(api.serverErrors, []);
});

test('a caller who may not list gets the problem a list gets: 401 anonymous, 403 without a scenario, 404 under a missing parent', async () => {
  assert.is((await open('/notes', null)).status, 401);
  assert.is((await open('/notes', { sub: 'eve', roles: ['nobody'] })).status, 403);
  assert.is((await open('/shelves/none/notes', WRITER('alice'))).status, 404);
  const json = await api.get('/notes', await as(WRITER('alice')));
  expectStatus(json, 200);
  assert.match(json.headers.get('vary') ?? '', /Accept/, 'the list says its representation depends on Accept');
});

test('resume: Last-Event-ID (or ?after=) replays every missed event in order, then goes live; past the retention, reset', async () => {
  const a = await as(WRITER('alice'));
  const first = await open('/notes', WRITER('alice'));
  dataOf(await api.post('/notes', { id: 'r1', shelf_id: 's1', heading: 'r1' }, a), 201);
  await first.count(1);
  const seenId = first.events[0]!.id!;
  first.close();
  for (const [id, heading] of [['r2', 'two'], ['r3', 'three']]) dataOf(await api.post('/notes', { id, shelf_id: 's1', heading }, a), 201);
  dataOf(await api.patch('/notes/r2', { heading: 'two again' }, a));
  const resumed = await open('/notes', WRITER('alice'), { 'Last-Event-ID': seenId });
  await resumed.count(3);
  assert.equal(brief(resumed.events), ['created r2', 'created r3', 'updated r2']);
  dataOf(await api.post('/notes', { id: 'r4', shelf_id: 's1', heading: 'live' }, a), 201);
  await resumed.count(4);
  assert.equal(brief(resumed.events).at(-1), 'created r4');
  const byQuery = await open(`/notes?after=${encodeURIComponent(seenId)}`, WRITER('alice'));
  await byQuery.count(4);
  assert.equal(brief(byQuery.events), brief(resumed.events), '?after= is the same');
  // Everything so far is pruned: a resume from before the horizon starts with `reset`, then goes live.
  await api.db.sql`update lib.changes set at = now() - interval '2 days'`;
  await api.db.sql`select lib.changes_prune(3600, 100000)`;
  const late = await open('/notes', WRITER('alice'), { 'Last-Event-ID': seenId });
  await late.until(() => late.events.length >= 1, 'reset');
  assert.is(late.events[0]!.event, 'reset');
  dataOf(await api.post('/notes', { id: 'r5', shelf_id: 's1', heading: 'after the reset' }, a), 201);
  await late.count(2);
  assert.equal(brief(late.events.slice(1)), ['created r5']);
  const bad = await EventClient.open(api.origin + api.basePath + '/notes', a.token, { 'Last-Event-ID': 'yesterday' });
  assert.is(bad.status, 400);
  assert.equal(api.serverErrors, []);
});

test('a resume past several pages (500 log rows each) gets every event in order, and live ones after them', async () => {
  const first = await open('/notes', WRITER('alice'));
  const a = await as(WRITER('alice'));
  dataOf(await api.post('/notes', { id: 'p0', shelf_id: 's1', heading: 'mark' }, a), 201);
  await first.count(1);
  const mark = first.events[0]!.id!;
  first.close();
  await api.db.sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${JSON.stringify(WRITER('alice'))}, true)`;
    await tx`insert into app.notes (id, shelf_id, title) select 'bulk' || i, 's1', 'n' || i from generate_series(1, 1200) i`;
  });
  const resumed = await open('/notes', WRITER('alice'), { 'Last-Event-ID': mark });
  dataOf(await api.post('/notes', { id: 'p1', shelf_id: 's1', heading: 'live' }, a), 201);
  await resumed.count(1201);
  assert.equal(resumed.events.slice(0, 1200).map((e) => e.data.id), Array.from({ length: 1200 }, (_, i) => `bulk${i + 1}`));
  assert.is(resumed.events[1200]!.data.id, 'p1');
  assert.is(resumed.events.length, 1201, 'each once');
  assert.equal(api.serverErrors, []);
});

test('a write through gateway A reaches a stream on gateway B; a rolled-back batch sends nothing', async () => {
  const other = await anotherGateway(api);
  try {
    const onB = await open('/notes', WRITER('alice'), {}, other);
    const a = await as(WRITER('alice'));
    const failed = await api.post('/batch', { operations: [
      { method: 'POST', path: '/notes', body: { id: 'x1', shelf_id: 's1', heading: 'rolled back' } },
      { method: 'POST', path: '/notes', body: { id: 'x1', shelf_id: 's1', heading: 'duplicate' } },
    ] }, a);
    assert.ok(failed.status >= 400, `the batch failed (${failed.status})`);
    dataOf(await api.post('/notes', { id: 'x2', shelf_id: 's1', heading: 'through A' }, a), 201);
    await onB.count(1);
    assert.equal(brief(onB.events), ['created x2'], 'the rolled-back batch sent nothing before it');
    assert.equal(other.serverErrors, []);
  } finally {
    await other.close();
  }
});

test('streams per caller are capped (429); a heartbeat comes every EVENTS_HEARTBEAT_MS; the stream ends with the token', async () => {
  const held = [await open('/notes', WRITER('dave')), await open('/notes', WRITER('dave')), await open('/notes', WRITER('dave'))];
  const fourth = await open('/notes', WRITER('dave'));
  assert.is(fourth.status, 429);
  assert.ok(fourth.headers.get('retry-after'));
  await held[0]!.until(() => held[0]!.comments.includes('heartbeat'), 'a heartbeat');
  const expiring = await EventClient.open(api.origin + api.basePath + '/notes',
    await api.token(WRITER('erin'), { exp: Math.floor(Date.now() / 1000) + 3 }));
  streams.push(expiring);
  assert.is(expiring.status, 200);
  await expiring.end();
  assert.ok(expiring.ended, 'the server ended the stream when the token expired');
  assert.equal(api.serverErrors, []);
});

test('OrganizationRBAC: a member\'s stream shows its organization\'s records, never another\'s', async () => {
  const billing = await startApi('examples/billing.model.json');
  try {
    const member = (org: string) => ({ sub: `m-${org}`, org, org_roles: ['member'] });
    const o1 = await open('/customers', member('o1'), {}, billing);
    const o2 = await open('/customers', member('o2'), {}, billing);
    dataOf(await billing.post('/customers', { name: 'Of o1' }, { token: await billing.token(member('o1')) }), 201);
    dataOf(await billing.post('/customers', { name: 'Of o2' }, { token: await billing.token(member('o2')) }), 201);
    await o1.count(1);
    await o2.count(1);
    assert.equal([o1.events.map((e) => e.data.data.name), o2.events.map((e) => e.data.data.name)], [['Of o1'], ['Of o2']]);
    // o1's record, written after o2's stream saw its own, never reaches o2: its next event is o2's next record.
    dataOf(await billing.post('/customers', { name: 'Again of o1' }, { token: await billing.token(member('o1')) }), 201);
    dataOf(await billing.post('/customers', { name: 'Again of o2' }, { token: await billing.token(member('o2')) }), 201);
    await o2.count(2);
    assert.equal(o2.events.map((e) => e.data.data.name), ['Of o2', 'Again of o2']);
    assert.equal(billing.serverErrors, []);
  } finally {
    await billing.close();
  }
});

test.run();
