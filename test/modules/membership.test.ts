// Membership: a manyToMany relation's edge properties, columns of the join table that a link writes and each linked
// record shows in `edge`; an enum one refuses other values (422). Against PostgreSQL through api.dispatch.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorsOf } from './checks.ts';
import { moduleDatabase, moduleModel, type ModuleDb } from './support.ts';

const user = { collection: 'users', properties: { id: { type: 'String', primary: true }, name: { type: 'String' } } };
const team = (modules?: unknown) => ({
  collection: 'teams',
  properties: { id: { type: 'String', primary: true }, name: { type: 'String' } },
  relations: { members: { kind: 'manyToMany', entity: 'User', ...(modules ? { modules } : {}) } },
});
const model = moduleModel('members', {
  User: user,
  Team: team({ Membership: { edge: { role: { enum: ['lead', 'member'], displayName: 'Team role' }, status: {} } } }),
});

let m: ModuleDb;
test.before(async () => {
  m = await moduleDatabase(model);
  await m.call('users_create', { body: { id: 'ada', name: 'Ada' } });
  await m.call('users_create', { body: { id: 'bob', name: 'Bob' } });
  await m.call('teams_create', { body: { id: 't1', name: 'One' } });
});
test.after(async () => m?.close());

test('the join table holds each edge property as a column; an enum one is checked', async () => {
  const columns = await m.db.sql`select column_name from information_schema.columns
    where table_schema = 'app' and table_name = 'teams_members' and column_name in ('role', 'status') order by 1`;
  assert.equal(columns.map((c) => c.column_name), ['role', 'status']);
  const [check] = await m.db.sql`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'teams_members_role_enum'`;
  assert.match(String(check!.def), /'lead'.*'member'/);
});

test('a link writes the edge, and the linked records show it', async () => {
  const linked = await m.call('teams_members_link', { id: 't1', target: 'ada', body: { role: 'lead', status: 'on leave' } });
  assert.is(linked.data.role, 'lead');
  assert.is(linked.data.status, 'on leave');
  await m.call('teams_members_link', { id: 't1', target: 'bob', body: {} });
  const list = await m.call('teams_members_list', { id: 't1' });
  assert.equal(list.data.map((r: any) => [r.id, r.edge]), [['ada', { role: 'lead', status: 'on leave' }], ['bob', { role: null, status: null }]]);
});

test('an edge value outside its enum is a 422 naming the property and the rule', async () => {
  const p = m.problem(await m.refusal('teams_members_link', { id: 't1', target: 'bob', body: { role: 'owner' } }), ['teams', 'teams_members']);
  assert.is(p.status, 422);
  const errors = (p.errors as Array<{ property: string; rule: string }>).map(({ property, rule }) => ({ property, rule }));
  assert.equal(errors, [{ property: 'role', rule: 'enum' }]);
});

test('the wire: the link body lists the edge properties, the enum and the display name', () => {
  const rel = m.manifest.resources.Team!.relations.members!;
  assert.is(rel.kind, 'manyToMany');
  if (rel.kind !== 'manyToMany') return;
  assert.equal(rel.edge, { role: { enum: ['lead', 'member'] }, status: {} });
  const link = rel.schemas.link as { properties: Record<string, any>; additionalProperties: boolean };
  assert.equal(Object.keys(link.properties), ['role', 'status']);
  assert.is(link.properties.role.title, 'Team role');
  assert.equal(link.properties.role.anyOf[0].enum, ['lead', 'member']);
  assert.is(link.additionalProperties, false);
});

test('without the module a relation has no edge; an unknown relation module is refused with the known ones', () => {
  assert.equal(errorsOf(moduleModel('plain', { User: user, Team: team() })), []);
  const e = errorsOf(moduleModel('bad', { User: user, Team: team({ Roster: {} }) })).find((x) => x.rule === 'Unknown module');
  assert.ok(e, 'refused');
  assert.is(e!.pointer, '/entities/Team/relations/members/modules/Roster');
  assert.match(e!.message, '(known: Membership)');
  const edge = errorsOf(moduleModel('bad2', { User: user, Team: team({ Membership: { edge: { rank: {} } } }) }));
  assert.ok(edge.some((x) => x.pointer.endsWith('/modules/Membership/edge/rank')), 'only role and status are edge properties');
});

test.run();
