// Webhooks (design 9) over the real gateway and a real receiver: one signed POST per committed change, retries after
// a 500 or a refused connection, failed past the retry window and redelivered, nothing for a rolled-back write, no
// double send from two workers, and writes that return while the receiver holds a POST open.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { testApi } from '../harness/fixtures.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { Receiver } from './support/receiver.ts';
import { WebhookWorker, type Outcome, type WebhookSettings } from '../../server/webhooks/worker.ts';
import { webhookTargets, type WebhookTarget } from '../../server/webhooks/settings.ts';
import { Metrics } from '../../server/http/metrics.ts';
import { killGroup, root, spawnGroup } from '../harness/child.ts';
import { freePort } from '../harness/net.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const SETTINGS: WebhookSettings = { timeoutMs: 5_000, retrySeconds: 3600, backoffMs: 10, concurrency: 4, keepSeconds: 3600 };

let api: RunningApi;
let receiver: Receiver;
const clients: postgres.Sql[] = [];

test.before(async () => {
  try {
    await setUp();
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});

async function setUp() {
  receiver = await new Receiver().start();
  api = await startApi({
    api: {
      ...testApi('hooks'),
      webhooks: [
        { name: 'search', url: '${SEARCH_HOOK_URL}' },
        { name: 'tags_created', url: 'http://127.0.0.1:9/never', entities: ['Tag'], actions: ['created'] },
      ],
    },
    entities: {
      Note: {
        collection: 'notes',
        softDelete: true,
        properties: {
          id: { type: 'String', primary: true },
          title: { type: 'String', web: { name: 'heading' } },
          pin: { type: 'String', writeOnly: true },
          version: { type: 'Number', modules: { Version: {} } },
        },
        relations: { tags: { kind: 'manyToMany', entity: 'Tag' } },
      },
      Tag: { collection: 'tags', properties: { id: { type: 'String', primary: true }, label: { type: 'String' } } },
    },
  });
}
test.after(async () => {
  for (const c of clients) await c.end({ timeout: 5 });
  await api?.close();
  await receiver?.down();
});

/** The search webhook at the receiver, as the gateway resolves it from its environment. */
const targets = (): WebhookTarget[] =>
  webhookTargets([{ name: 'search', url: '${SEARCH_HOOK_URL}' }], { SEARCH_HOOK_URL: receiver.url, WEBHOOK_SEARCH_SECRET: SECRET });

/** A worker on a connection of its own (as a gateway has), woken by the log's notify; its outcomes kept in order. */
async function worker(o: { settings?: Partial<WebhookSettings>; clock?: () => number; metrics?: Metrics; more?: WebhookTarget[] } = {}) {
  const sql = postgres(api.db.url, { onnotice: () => {}, max: 2 });
  clients.push(sql);
  const outcomes: Array<{ webhook: string; outcome: Outcome }> = [];
  const waiters: Array<() => void> = [];
  const errors: unknown[] = [];
  const w = new WebhookWorker(sql, api.manifest, [...targets(), ...o.more ?? []], { ...SETTINGS, ...o.settings }, {
    log: (message, err) => { if (message !== 'webhook delivery failed') errors.push(err); },

    counted: (webhook, outcome) => {
      outcomes.push({ webhook, outcome });
      o.metrics?.webhookAttempts.inc({ webhook, outcome });
      waiters.splice(0).forEach((r) => r());
    },
    everyMs: 60_000, // only the notify and the retries' own timers wake it in these tests
    ...(o.clock ? { clock: o.clock } : {}),
  });
  await w.start((channel, onNotify) => sql.listen(channel, onNotify));
  /** Resolves once `until()` holds, checked after each recorded outcome. */
  const waitFor = async (until: () => boolean) => { while (!until()) await new Promise<void>((r) => waiters.push(r)); };
  return { w, outcomes, errors, waitFor };
}

interface Row { id: string; change_id: string; status: string; attempts: number; last_status: number | null; last_error: string | null; record_key: string; action: string }
const deliveries = async (webhook: string, key: string): Promise<Row[]> => [...await api.db.sql<Row[]>`
  select id::text, change_id::text, status, attempts, last_status, last_error, record_key, action from lib.webhook_deliveries
  where webhook = ${webhook} and record_key = ${key} order by change_id`];

test('one signed POST per change, verified with standardwebhooks; the record as a GET shows it', async () => {
  const { w, errors } = await worker();
  dataOf(await api.post('/notes', { id: 'n1', heading: 'One', pin: '1234' }), 201);
  dataOf(await api.patch('/notes/n1', { heading: 'Eins' }));
  dataOf(await api.post('/tags', { id: 't1', label: 'red' }), 201);
  expectStatus(await api.put('/notes/n1/tags/t1', {}), 201);
  expectStatus(await api.del('/notes/n1'), 204);
  await receiver.waitFor(() => receiver.bodiesOf('n1').length === 4);
  const verifier = new Webhook(SECRET);
  const posts = receiver.received.filter((r) => JSON.parse(r.body).key === 'n1');
  const payloads = posts.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as any);
  assert.equal(payloads.map((p) => p.type).sort(), ['notes.created', 'notes.deleted', 'notes.linked', 'notes.updated']);
  const byType = Object.fromEntries(payloads.map((p) => [p.type, p]));
  const created = byType['notes.created'];
  assert.equal(created.data, { id: 'n1', heading: 'One', version: 1 }, 'wire names, no writeOnly property, no system columns');
  assert.equal([created.collection, created.key, created.action, created.etag, created.by], ['notes', 'n1', 'created', '1', 'u-admin']);
  assert.ok(!('previous' in created));
  assert.is(byType['notes.updated'].data.heading, 'Eins');
  assert.equal(byType['notes.linked'].data, { relation: 'tags', target: 't1', edge: {} });
  assert.is(byType['notes.deleted'].data, null);
  assert.equal(byType['notes.deleted'].previous, { id: 'n1', heading: 'Eins', version: 2 }, 'the record before its deletion');
  for (const r of posts) {
    assert.is(r.headers['webhook-id'], JSON.parse(r.body).id, 'webhook-id is the change id of the payload');
    assert.ok(/^v1,/.test(String(r.headers['webhook-signature'])));
  }
  assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 8).toString('base64')}`).verify(posts[0]!.body, posts[0]!.headers as Record<string, string>),
    'another secret does not verify');
  await w.stop(1000);
  const rows = await deliveries('search', 'n1');
  assert.equal(rows.map((r) => [r.status, r.attempts, r.last_status]), Array(4).fill(['delivered', 1, 200]));
  // The other webhook takes only created Tags: t1's creation is its one delivery (never sent: no worker has it).
  const [filtered] = await api.db.sql`select count(*)::int as n, min(record_key) as k, min(action) as a from lib.webhook_deliveries where webhook = 'tags_created'`;
  assert.equal({ ...filtered }, { n: 1, k: 't1', a: 'created' });
  assert.equal(errors, []);
  assert.equal(api.serverErrors, []);
});

test('a 500 is retried with backoff, then delivered; every attempt carries the same webhook-id', async () => {
  let fails = 2;
  receiver.answer = (r) => (JSON.parse(r.body).key === 'n2' && fails-- > 0 ? 500 : 200);
  const { w, outcomes, waitFor } = await worker();
  dataOf(await api.post('/notes', { id: 'n2', heading: 'Two' }), 201);
  await waitFor(() => outcomes.some((o) => o.outcome === 'delivered'));
  await w.stop(1000);
  assert.equal(outcomes.map((o) => o.outcome), ['retried', 'retried', 'delivered']);
  const posts = receiver.received.filter((r) => JSON.parse(r.body).key === 'n2');
  assert.is(posts.length, 3);
  assert.is(new Set(posts.map((r) => r.headers['webhook-id'])).size, 1);
  const [row] = await deliveries('search', 'n2');
  assert.equal([row!.status, row!.attempts, row!.last_status, row!.last_error], ['delivered', 3, 200, null]);
  receiver.answer = () => 200;
});

test('a receiver that is down (connection refused) is retried until it is back', async () => {
  await receiver.down();
  const { w, outcomes, waitFor } = await worker();
  dataOf(await api.post('/notes', { id: 'n3', heading: 'Three' }), 201);
  await waitFor(() => outcomes.length >= 2);
  const [pending] = await deliveries('search', 'n3');
  assert.is(pending!.status, 'pending');
  assert.ok(/ECONNREFUSED/.test(pending!.last_error ?? ''), pending!.last_error ?? '');
  assert.is(pending!.last_status, null);
  await receiver.start();
  await waitFor(() => outcomes.some((o) => o.outcome === 'delivered'));
  await w.stop(1000);
  assert.ok(outcomes.slice(0, -1).every((o) => o.outcome === 'retried'));
  assert.is(receiver.bodiesOf('n3').length, 1);
  const [row] = await deliveries('search', 'n3');
  assert.equal([row!.status, row!.last_status], ['delivered', 200]);
});

test('failed once the retry window has passed; lib.webhook_redeliver sends it again; /metrics counts both', async () => {
  receiver.answer = () => 503;
  let offset = 0;
  const metrics = new Metrics(false);
  metrics.watchWebhooks(api.db.sql);
  const { w, outcomes, waitFor } = await worker({ clock: () => Date.now() + offset, settings: { retrySeconds: 60 }, metrics });
  dataOf(await api.post('/notes', { id: 'n4', heading: 'Four' }), 201);
  await waitFor(() => outcomes.length === 1);
  assert.equal(outcomes.map((o) => o.outcome), ['retried']);
  offset = 61_000; // the window of 60 s has passed by the next attempt
  await waitFor(() => outcomes.length === 2);
  assert.equal(outcomes.map((o) => o.outcome), ['retried', 'failed']);
  const [failed] = await deliveries('search', 'n4');
  assert.equal([failed!.status, failed!.attempts, failed!.last_status, failed!.last_error], ['failed', 2, 503, 'the receiver answered 503']);
  let text = await metrics.registry.metrics();
  assert.match(text, /webhook_deliveries_failed\{webhook="search"\} 1/);
  assert.match(text, /webhook_deliveries_pending\{webhook="search"\} 0/);
  assert.match(text, /webhook_deliveries_pending\{webhook="tags_created"\} 1/);
  assert.match(text, /webhook_deliveries_sent_total\{webhook="search",outcome="failed"\} 1/);
  assert.match(text, /webhook_deliveries_sent_total\{webhook="search",outcome="retried"\} 1/);

  receiver.answer = () => 200;
  offset = 0;
  const [again] = await api.db.sql`select lib.webhook_redeliver('search', now() - interval '1 hour') as n`;
  assert.is(again!.n, 1);
  await waitFor(() => outcomes.length === 3);
  await w.stop(1000);
  assert.is(outcomes[2]!.outcome, 'delivered');
  const [row] = await deliveries('search', 'n4');
  assert.equal([row!.status, row!.attempts, row!.last_status], ['delivered', 1, 200]);
  text = await metrics.registry.metrics();
  assert.match(text, /webhook_deliveries_failed\{webhook="search"\} 0/);
  const unknown = await api.db.sql`select lib.webhook_redeliver('nope', now())`.then(() => 'no error', (err: Error) => err.message);
  assert.is(unknown, 'no webhook named "nope"');
});

test('a rolled-back batch is never delivered; the write after it is', async () => {
  const { w, errors } = await worker();
  const failed = await api.post('/batch', { operations: [
    { method: 'POST', path: '/notes', body: { id: 'rolled', heading: 'Never' } },
    { method: 'POST', path: '/notes', body: { id: 'rolled', heading: 'Duplicate' } },
  ] });
  assert.ok(failed.status >= 400, `the batch failed (${failed.status})`);
  dataOf(await api.post('/notes', { id: 'after', heading: 'Kept' }), 201);
  await receiver.waitFor(() => receiver.bodiesOf('after').length === 1);
  await w.stop(1000);
  assert.equal(receiver.bodiesOf('rolled'), []);
  assert.equal(await deliveries('search', 'rolled'), []);
  assert.equal(errors, []);
});

test('two workers on one database: N changes, exactly N deliveries', async () => {
  const a = await worker(), b = await worker();
  const N = 60;
  const before = receiver.received.length;
  await Promise.all(Array.from({ length: 6 }, async (_, i) => {
    const notes = Array.from({ length: N / 6 }, (_, j) => ({ id: `m${i}-${j}`, heading: `M ${i} ${j}` }));
    dataOf(await api.post('/notes', notes), 201);
  }));
  await receiver.waitFor(() => receiver.received.length - before >= N);
  await Promise.all([a.w.stop(5000), b.w.stop(5000)]);
  const posts = receiver.received.slice(before).map((r) => JSON.parse(r.body));
  assert.is(posts.length, N, 'no double send');
  assert.is(new Set(posts.map((p) => p.id)).size, N);
  assert.is(a.outcomes.length + b.outcomes.length, N, 'one attempt each, by either worker');
  const [left] = await api.db.sql`select count(*)::int as n from lib.webhook_deliveries where webhook = 'search' and status <> 'delivered'`;
  assert.is(left!.n, 0);
  assert.equal([...a.errors, ...b.errors], []);
});

test('writes return while the receiver holds a POST open; another webhook is not held up', async () => {
  let first = true; // the first POST of the record "slow" is held, until the test answers it
  receiver.answer = (r) => (JSON.parse(r.body).key === 'slow' && first ? (first = false, 'hold') : 200);
  const tagsCreated = { name: 'tags_created', url: receiver.url, secret: SECRET }; // its deliveries to this receiver too
  const { w } = await worker({ settings: { concurrency: 1, timeoutMs: 120_000 }, more: [tagsCreated] });
  dataOf(await api.post('/notes', { id: 'slow', heading: 'Held' }), 201);
  await receiver.waitFor(() => receiver.bodiesOf('slow').length === 1);
  const held = receiver.received.find((r) => JSON.parse(r.body).key === 'slow')!;
  // The POST is in flight and unanswered; every write still completes.
  for (let i = 0; i < 5; i++) dataOf(await api.post('/notes', { id: `w${i}`, heading: 'Written' }), 201);
  dataOf(await api.patch('/notes/slow', { heading: 'Changed meanwhile' }));
  dataOf(await api.post('/tags', { id: 'iso', label: 'other webhook' }), 201);
  // The other webhook has places of its own: its delivery goes while the first is held.
  await receiver.waitFor(() => receiver.bodiesOf('iso').length === 1);
  assert.ok(w.inFlight >= 1);
  assert.not.ok(held.res.writableEnded, 'the receiver still holds the first POST');
  const [queued] = await api.db.sql`select count(*)::int as n from lib.webhook_deliveries where webhook = 'search' and status = 'pending'`;
  assert.ok(queued!.n >= 6, `the writes' deliveries wait their turn (${queued!.n})`);
  assert.equal(receiver.bodiesOf('w0'), []);
  held.res.writeHead(200).end('ok');
  // Then the rest: the writes, the patch, and the tag's creation for this webhook too.
  const sent = (key: string, action: string) => receiver.bodiesOf(key).some((p) => p.action === action && p.type.startsWith(key === 'iso' ? 'tags' : 'notes'));
  await receiver.waitFor(() => [0, 1, 2, 3, 4].every((i) => sent(`w${i}`, 'created')) && sent('slow', 'updated') && receiver.bodiesOf('iso').length === 2);
  await w.stop(5000);
  const [left] = await api.db.sql`select count(*)::int as n from lib.webhook_deliveries where webhook = 'search' and status <> 'delivered'`;
  assert.is(left!.n, 0);
  receiver.answer = () => 200;
});

test("README's receiver (examples/webhook-receiver.mjs) verifies the gateway's signature and prints the change", async () => {
  const port = await freePort();
  const child = spawnGroup(process.execPath, ['examples/webhook-receiver.mjs'], {
    cwd: root, env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const printed = new Promise<void>((resolve) => child.stdout!.on('data', (c: Buffer) => { out += c.toString('utf8'); if (out.includes('\n')) resolve(); }));
  const sql = postgres(api.db.url, { onnotice: () => {}, max: 2 });
  clients.push(sql);
  // Until the receiver listens, its connection is refused and the worker retries (10 ms, doubling).
  const w = new WebhookWorker(sql, api.manifest, [{ name: 'search', url: `http://127.0.0.1:${port}/`, secret: SECRET }], SETTINGS, { log: () => {}, everyMs: 60_000 });
  await w.start((channel, onNotify) => sql.listen(channel, onNotify));
  try {
    dataOf(await api.post('/notes', { id: 'ex1', heading: 'Example' }), 201);
    await printed;
    assert.is(out, 'notes.created ex1 1 {"id":"ex1","heading":"Example","version":1}\n');
  } finally {
    await w.stop(1000);
    killGroup(child);
  }
  const [row] = await deliveries('search', 'ex1');
  assert.is(row!.status, 'delivered', 'it answered 204');
});

test('a webhook whose position fell below the pruning horizon is named once, and moves on', async () => {
  await api.db.sql`update lib.changes_horizon set (pruned_tx, pruned_id) = (select tx, id from lib.changes order by tx desc, id desc limit 1)`;
  await api.db.sql`update lib.webhooks set pos_tx = '1', pos_id = 0 where name = 'tags_created'`;
  const [first] = await api.db.sql`select * from lib.webhook_enqueue(100)`;
  assert.equal(first!.behind, ['tags_created']);
  const [second] = await api.db.sql`select * from lib.webhook_enqueue(100)`;
  assert.equal(second!.behind, []);
});

test('start-up: every missing address variable and secret is named', () => {
  const rows = [{ name: 'search', url: '${SEARCH_HOOK_URL}' }, { name: 'mail', url: 'https://${MAIL_HOST}/hook' }];
  const err = (() => { try { webhookTargets(rows, { WEBHOOK_MAIL_SECRET: 'plain' }); } catch (e) { return (e as Error).message; } return ''; })();
  assert.match(err, /SEARCH_HOOK_URL: the address of the webhook "search"/);
  assert.match(err, /MAIL_HOST: the address of the webhook "mail"/);
  assert.match(err, /WEBHOOK_SEARCH_SECRET: the signing secret/);
  assert.match(err, /WEBHOOK_MAIL_SECRET must be whsec_/);
  const ok = webhookTargets(rows, { SEARCH_HOOK_URL: 'http://search.internal/in', MAIL_HOST: 'mail.example.com', WEBHOOK_SEARCH_SECRET: SECRET, WEBHOOK_MAIL_SECRET: SECRET });
  assert.equal(ok.map((t) => t.url), ['http://search.internal/in', 'https://mail.example.com/hook']);
});

test.run();
