// Status: with initialStatuses a new record must start in one of them (PT422); later moves are for access rules.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';

const model = moduleModel('status', {
  Doc: {
    collection: 'docs',
    properties: {
      id: { type: 'String', primary: true, immutable: true },
      state: { type: 'String', enum: ['draft', 'review', 'live'], defaultValue: 'draft', modules: { Status: { initialStatuses: ['draft', 'review'] } } },
    },
  },
});

let m: ModuleDb;
test.before(async () => { m = await moduleDatabase(model); });
test.after(async () => m?.close());

test('Status: a new record starts in an initial status (default included); others are refused with PT422', async () => {
  const [def] = await m.as((tx) => tx`insert into app.docs (id) values ('s1') returning state`);
  assert.is(def!.state, 'draft');
  const [rev] = await m.as((tx) => tx`insert into app.docs (id, state) values ('s2', 'review') returning state`);
  assert.is(rev!.state, 'review');
  const err = await m.error((tx) => tx`insert into app.docs (id, state) values ('s3', 'live')`);
  assert.is(err.code, 'PT422');
  assert.equal(JSON.parse(err.detail), { property: 'state', rule: 'initialStatuses' });
  const nul = await m.error((tx) => tx`insert into app.docs (id, state) values ('s4', null)`);
  assert.is(nul.code, 'PT422');
  // Access rules, not the Status module, govern later moves: an update to a non-initial status is fine.
  const [live] = await m.as((tx) => tx`update app.docs set state = 'live' where id = 's1' returning state`);
  assert.is(live!.state, 'live');
});

test('through api.dispatch the refusal is a 422 naming the property and the rule', async () => {
  const err = await m.refusal('docs_create', { body: { id: 's5', state: 'live' } });
  const p = m.problem(err);
  assert.is(p.status, 422);
  assert.equal((p.errors as Array<{ property: string; rule: string }>).map(({ property, rule }) => ({ property, rule })), [{ property: 'state', rule: 'initialStatuses' }]);
});

test('model checks: a single String, one per entity, initial statuses within the enum and holding the default', () => {
  const doc = (props: Record<string, unknown>) => moduleModel('s', { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, ...props } } });
  assert.ok(errorsOf(doc({ s: { type: 'Number', modules: { Status: {} } } })).some((e) => e.rule === 'Semantic Data Alignment'));
  assert.ok(errorsOf(doc({ a: { type: 'String', modules: { Status: {} } }, b: { type: 'String', modules: { Status: {} } } })).some((e) => e.rule === 'Single Status'));
  assert.ok(errorsOf(doc({ s: { type: 'String', enum: ['a'], modules: { Status: { initialStatuses: ['b'] } } } })).some((e) => e.rule === 'Status'));
  assert.ok(errorsOf(doc({ s: { type: 'String', defaultValue: 'a', modules: { Status: { initialStatuses: ['b'] } } } })).some((e) => e.rule === 'Status'));
  assert.ok(errorsOf(doc({ s: { type: 'String', modules: { Status: { initialStatuses: [] } } } })).some((e) => e.rule === 'Model schema'));
});

test.run();
