// Webhooks as a deployment runs them: two `serve` processes (runGateway, the gateway's own login) on one database send
// each change exactly once, signed, woken by the change log's notify; /metrics shows the counts; a missing secret or
// address variable stops the start, naming it; SIGTERM waits for a POST the receiver holds, up to the grace.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';
import { runProcess } from '../harness/child.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';
import { dataOf } from '../e2e/support/http.ts';
import { Receiver } from '../e2e/support/receiver.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const MODEL = {
  api: { ...testApi('relay'), webhooks: [{ name: 'search', url: '${SEARCH_HOOK_URL}', entities: ['Doc'] }] },
  entities: { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, title: { type: 'String' } } } },
};

/** A short wait between two looks at state another process changes (the database, a log). */
const pause = () => new Promise<void>((r) => setTimeout(r, 20));

let db: TestDatabase;
let receiver: Receiver;
let env: NodeJS.ProcessEnv;
const gateways: ServedGateway[] = [];

test.before(async () => {
  try {
    db = await freshDatabase();
    await installModel(db, MODEL);
    receiver = await new Receiver().start();
    env = {
      GATEWAY_DATABASE_URL: await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' }), LOG_LEVEL: 'info',
      SEARCH_HOOK_URL: receiver.url, WEBHOOK_SEARCH_SECRET: SECRET, WEBHOOK_BACKOFF_MS: '10', SHUTDOWN_GRACE_MS: '20000',
    };
    gateways.push(await startServe(env), await startServe(env));
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});

test.after(async () => {
  for (const g of gateways) await g.stop();
  await receiver?.down();
  await db?.close();
});

test('two gateways: N changes through both, each POSTed exactly once, signed', async () => {
  const [a, b] = gateways.map((g) => g.client('/api/relay/v1')) as [ReturnType<ServedGateway['client']>, ReturnType<ServedGateway['client']>];
  const N = 40;
  await Promise.all(Array.from({ length: N }, async (_, i) => dataOf(await (i % 2 ? a : b).post('/docs', { id: `d${i}`, title: `Doc ${i}` }), 201)));
  await receiver.waitFor(() => receiver.received.length >= N);
  // Every delivery recorded as delivered: no POST of them can still be on its way.
  for (;;) {
    const [left] = await db.sql`select count(*)::int as n from lib.webhook_deliveries where status <> 'delivered'`;
    if (left!.n === 0) break;
    await pause();
  }
  const verifier = new Webhook(SECRET);
  const payloads = receiver.received.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as any);
  assert.is(payloads.length, N, 'no double send');
  assert.equal(payloads.map((p) => p.key).sort(), Array.from({ length: N }, (_, i) => `d${i}`).sort());
  assert.ok(payloads.every((p) => p.type === 'docs.created' && p.by === 'u-admin'));
  const metrics = await (await fetch(`${gateways[0]!.origin}/metrics`)).text();
  assert.match(metrics, /webhook_deliveries_pending\{webhook="search"\} 0/);
  assert.match(metrics, /webhook_deliveries_failed\{webhook="search"\} 0/);
});

test('a missing secret or address variable stops the start, naming each', async () => {
  const run = await runProcess(process.execPath, ['--import', 'tsx', 'ops/cli/serve.ts'],
    { ...env, SEARCH_HOOK_URL: '', WEBHOOK_SEARCH_SECRET: '', JWT_SECRET: 'serve-test-secret-0123456789abcdef-0123456789', FILES_SECRET: 'x', PORT: '0' });
  assert.is(run.code, 1);
  assert.match(run.stderr, /Serve failed: Webhooks need:/);
  assert.match(run.stderr, /SEARCH_HOOK_URL: the address of the webhook "search"/);
  assert.match(run.stderr, /WEBHOOK_SEARCH_SECRET: the signing secret of the webhook "search"/);
});

test('SIGTERM waits for a POST the receiver holds, then stops', async () => {
  receiver.answer = () => 'hold';
  const before = receiver.received.length;
  const client = gateways[0]!.client('/api/relay/v1');
  dataOf(await client.post('/docs', { id: 'held', title: 'Held' }), 201);
  await receiver.waitFor(() => receiver.received.length > before);
  const held = receiver.received[before]!;
  const stopping = gateways.map((g) => g.stop());
  // Both are draining: the one sending waits for its answer (the grace is 20 s), then both end.
  while (!gateways.every((g) => g.logs().some((l) => l.msg === 'draining'))) await pause();
  assert.not.ok(held.res.writableEnded);
  held.res.writeHead(200).end('ok');
  assert.equal(await Promise.all(stopping), [0, 0]);
  gateways.length = 0;
  const [row] = await db.sql`select status, attempts from lib.webhook_deliveries where record_key = 'held'`;
  assert.equal({ ...row }, { status: 'delivered', attempts: 1 });
});

test.run();
