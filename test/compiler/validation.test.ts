// Every domain-validation rule of the model compiler: a model that breaks it is rejected with an
// error naming the JSON pointer and the rule; both shipped example models are accepted unchanged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { compileModel, ModelValidationError, type ModelError } from '../../compiler/index.ts';

const example = (name: string) => JSON.parse(readFileSync(new URL(`../../examples/${name}.model.json`, import.meta.url), 'utf8'));

/** A small valid model; each test breaks one thing in a copy. */
function base(): any {
  return {
    api: { slug: 'shop', version: 'v1', title: 'Shop', docsUrl: 'https://docs.example.com', strategy: 'RBAC' },
    entities: {
      Item: {
        collection: 'items',
        properties: {
          id: { type: 'String', primary: true, readOnly: true },
          name: { type: 'String', required: true },
          state: { type: 'String', enum: ['new', 'old'], modules: { Status: { initialStatuses: ['new'] } } },
          data: { type: 'JSON', schema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } } } } },
        },
        scenarios: [{ label: 'Everyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }],
      },
    },
  };
}

function errorsOf(model: unknown): ModelError[] {
  try {
    compileModel(model);
  } catch (err) {
    if (err instanceof ModelValidationError) return err.errors;
    throw err;
  }
  return [];
}

/** Asserts that exactly the expected error (pointer + rule, message fragment) is reported. */
function rejects(model: unknown, pointer: string, rule: string, fragment: string) {
  const errors = errorsOf(model);
  const hit = errors.find((e) => e.pointer === pointer && e.rule === rule && e.message.includes(fragment));
  assert.ok(hit, `expected ${rule} at ${pointer} containing "${fragment}", got ${JSON.stringify(errors, null, 1)}`);
}

const P = '/entities/Item/properties';

test('both example models are accepted unchanged and compile to SQL', () => {
  for (const name of ['publishing', 'billing']) {
    const { sql, model } = compileModel(example(name));
    assert.is(model.api.slug, name);
    assert.match(sql, /CREATE TABLE IF NOT EXISTS "app"\."/);
  }
  assert.equal(errorsOf(base()), []);
});

test('api.identity: the user entity needs one unique Email and one Password property; roles, org, orgRoles of the right shape', () => {
  const withUsers = () => {
    const m = base();
    m.entities.User = {
      collection: 'users',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        email: { type: 'String', unique: true, modules: { Email: {} } },
        password: { type: 'String', modules: { Password: {} } },
        roles: { type: 'String', multiple: true },
        tenant: { type: 'String' },
      },
      relations: { groups: { kind: 'manyToMany', entity: 'Item' } },
    };
    m.api.identity = { entity: 'User', roles: 'roles', org: 'tenant', orgRoles: 'roles' };
    return m;
  };
  assert.equal(errorsOf(withUsers()), []);
  assert.equal(errorsOf({ ...withUsers(), api: { ...withUsers().api, identity: { entity: 'User', roles: 'groups' } } }), [], 'a manyToMany relation holds roles');
  const noPassword = withUsers();
  delete noPassword.entities.User.properties.password;
  rejects(noPassword, '/api/identity/entity', 'Identity', 'exactly one property with the Password module');
  const noEmail = withUsers();
  noEmail.api.identity = { entity: 'Item' };
  rejects(noEmail, '/api/identity/entity', 'Identity', 'exactly one property with the Email module');
  const notUnique = withUsers();
  delete notUnique.entities.User.properties.email.unique;
  rejects(notUnique, '/api/identity/entity', 'Identity', 'must be unique');
  const unknown = withUsers();
  unknown.api.identity.entity = 'Person';
  rejects(unknown, '/api/identity/entity', 'Unknown entity', 'Person');
  const badRoles = withUsers();
  badRoles.api.identity.roles = 'tenant';
  rejects(badRoles, '/api/identity/roles', 'Identity', 'multiple String property or a manyToMany relation');
  const badOrg = withUsers();
  badOrg.api.identity.org = 'roles';
  rejects(badOrg, '/api/identity/org', 'Identity', 'single String');
  const orphanRoles = withUsers();
  delete orphanRoles.api.identity.org;
  rejects(orphanRoles, '/api/identity/orgRoles', 'Identity', 'needs org');
  const taken = withUsers();
  taken.entities.Item.collection = 'auth';
  rejects(taken, '/entities/Item/collection', 'Identity', 'taken by the sign-in endpoints');
  const extra = withUsers();
  extra.api.identity.password = 'password';
  assert.ok(errorsOf(extra).some((e) => e.pointer.startsWith('/api/identity')), 'unknown keys are refused by the schema');
});

test('renamedFrom names something the model no longer has, once', () => {
  const m = base();
  m.entities.Item.properties.title = { type: 'String', renamedFrom: 'name' };
  rejects(m, `${P}/title/renamedFrom`, 'Rename', 'still has a property named "name"');
  const twice = base();
  twice.entities.Item.properties.a = { type: 'String', renamedFrom: 'old' };
  twice.entities.Item.properties.b = { type: 'String', renamedFrom: 'old' };
  rejects(twice, `${P}/b/renamedFrom`, 'Rename', 'renamed from "old" too');
  const entity = base();
  entity.entities.Other = { ...entity.entities.Item, collection: 'others', renamedFrom: 'Item' };
  rejects(entity, '/entities/Other/renamedFrom', 'Rename', 'still has an entity named "Item"');
  const ok = base();
  ok.entities.Product = { ...ok.entities.Item, renamedFrom: { entity: 'Item', collection: 'goods' } };
  delete ok.entities.Item;
  ok.entities.Product.properties.label = { ...ok.entities.Product.properties.name, renamedFrom: 'name' };
  delete ok.entities.Product.properties.name;
  assert.equal(errorsOf(ok), []);
});

test('readOnly together with immutable', () => {
  const m = base();
  m.entities.Item.properties.name.readOnly = true;
  m.entities.Item.properties.name.immutable = true;
  rejects(m, `${P}/name`, 'Write Lifecycle', 'readOnly cannot be combined with immutable');
});

test('Binary without FileURL or ImageURL', () => {
  const m = base();
  m.entities.Item.properties.blob = { type: 'Binary' };
  rejects(m, `${P}/blob`, 'Binary Needs File Module', 'FileURL or ImageURL');
  m.entities.Item.properties.blob = { type: 'Binary', modules: { FileURL: {} } };
  assert.equal(errorsOf(m), []);
});

test('Version on a non-numeric property is a Semantic Data Alignment error', () => {
  for (const type of ['String', 'Date']) {
    const m = base();
    m.entities.Item.properties.rev = { type, modules: { Version: {} } };
    rejects(m, `${P}/rev/modules/Version`, 'Semantic Data Alignment', 'Version needs an integer Number property');
  }
  const m = base();
  m.entities.Item.properties.rev = { type: 'Number', web: { format: 'float' }, modules: { Version: {} } };
  rejects(m, `${P}/rev/modules/Version`, 'Semantic Data Alignment', 'integer');
});

test('a model that breaks its JSON Schema reports the domain errors too, in one run', () => {
  const m = base();
  m.entities.Item.properties.rev = { type: 'String', modules: { Version: {} } };
  m.entities.Item.unknownKey = true;
  const errors = errorsOf(m);
  assert.ok(errors.some((e) => /unknownKey/.test(e.message) || /unknownKey/.test(e.pointer)), JSON.stringify(errors));
  rejects(m, `${P}/rev/modules/Version`, 'Semantic Data Alignment', 'Version needs an integer Number property');
});

test('a Version with enum, defaultValue or a minimum past 1, an Email with an uppercase enum value or default: never writable', () => {
  for (const extra of [{ enum: ['1', '2'] }, { defaultValue: 3 }, { minimum: 5 }, { minimum: 1, exclusiveMinimum: true }]) {
    const m = base();
    m.entities.Item.properties.rev = { type: 'Number', modules: { Version: {} }, ...extra };
    rejects(m, `${P}/rev/modules/Version`, 'Version', 'cannot carry enum, defaultValue or a minimum that excludes 1');
  }
  const ok = base();
  ok.entities.Item.properties.rev = { type: 'Number', modules: { Version: {} }, minimum: 1, maximum: 1000000 };
  assert.equal(errorsOf(ok), []);
  const e = base();
  e.entities.Item.properties.mail = { type: 'String', enum: ['a@example.com', 'B@example.com'], modules: { Email: {} } };
  rejects(e, `${P}/mail/modules/Email`, 'Email', '"B@example.com" can never be stored');
});

test('a DateTime default, minimum or maximum without its offset is a model error (the gateway refuses one in a body)', () => {
  for (const [key, value] of [['defaultValue', '2025-01-31 09:00'], ['minimum', '2025-01-31T09:00:00'], ['maximum', '2025-01-31']] as const) {
    const m = base();
    m.entities.Item.properties.at = { type: 'DateTime', [key]: value };
    const errors = errorsOf(m);
    assert.ok(errors.some((e) => e.pointer.startsWith(`${P}/at`) && e.message.includes('with its offset')), JSON.stringify(errors));
  }
  const ok = base();
  ok.entities.Item.properties.at = { type: 'DateTime', defaultValue: '2025-01-31T09:00:00+01:00', minimum: '2000-01-01T00:00:00Z' };
  assert.equal(errorsOf(ok), []);
});

test('a Date or DateTime default or bound PostgreSQL would give back as no RFC 3339 value (past 9999 or before year 1 in UTC) is a model error', () => {
  const cases = [['DateTime', 'defaultValue', '9999-12-31T23:59:59-01:00'], ['DateTime', 'maximum', '9999-12-31T23:59:59.9999999Z'],
    ['DateTime', 'minimum', '0001-01-01T00:00:00+01:00'], ['Date', 'defaultValue', '0000-01-01'], ['Date', 'minimum', '0000-02-29']] as const;
  for (const [type, key, value] of cases) {
    const m = base();
    m.entities.Item.properties.at = { type, [key]: value };
    const errors = errorsOf(m);
    assert.ok(errors.some((e) => e.pointer.startsWith(`${P}/at`) && /9999/.test(e.message)), `${type} ${key} ${value}: ${JSON.stringify(errors)}`);
  }
  const ok = base();
  ok.entities.Item.properties.at = { type: 'DateTime', minimum: '0001-01-01T00:00:00Z', maximum: '9999-12-31T22:59:59.999999-01:00' };
  ok.entities.Item.properties.on = { type: 'Date', minimum: '0001-01-01', maximum: '9999-12-31' };
  assert.equal(errorsOf(ok), []);
});

test('a child collection whose path below its parent\'s record is a route of the parent: a relation, or restore', () => {
  const m = base();
  m.entities.Shelf = {
    collection: 'shelves', softDelete: true, properties: { id: { type: 'String', primary: true } },
    relations: { items: { kind: 'manyToMany', entity: 'Item' } },
  };
  m.entities.Item.properties.shelf_id = { type: 'String', references: 'Shelf' };
  m.entities.Item.parent = { entity: 'Shelf', property: 'shelf_id' };
  rejects(m, '/entities/Item/collection', 'Name Collision', '/shelves/{id}/items would mean both');
  m.entities.Item.collection = 'restore';
  rejects(m, '/entities/Item/collection', 'Name Collision', 'is the restore of its record');
  m.entities.Shelf.softDelete = false;
  assert.equal(errorsOf(m), [], 'without soft delete there is no restore route');
});

test('history: true or {keepDays} needs a Version; keepDays a whole number of days; no relation or child collection may take …/{id}/history', () => {
  const m = base();
  m.entities.Item.history = true;
  rejects(m, '/entities/Item/history', 'History', 'it needs a property with the Version module');
  m.entities.Item.history = { keepDays: 30 };
  rejects(m, '/entities/Item/history', 'History', 'it needs a property with the Version module');
  m.entities.Item.history = false;
  assert.equal(errorsOf(m), [], 'false is fine without a Version');
  m.entities.Item.properties.version = { type: 'Number', modules: { Version: {} } };
  for (const bad of [{ keepDays: 0 }, { keepDays: 1.5 }, { keepDays: '7' }, { days: 7 }, 'yes']) {
    m.entities.Item.history = bad;
    assert.ok(errorsOf(m).some((e) => e.pointer.startsWith('/entities/Item/history')), `refused by the schema: ${JSON.stringify(bad)}`);
  }
  m.entities.Item.history = { keepDays: 30 };
  assert.equal(errorsOf(m), []);
  delete m.entities.Item.history;
  m.entities.Item.relations = { history: { kind: 'oneToOne', properties: { note: { type: 'String' } } } };
  rejects(m, '/entities/Item/relations/history', 'Name Collision', 'is the record\'s history; rename the relation or set "history": false');
  m.entities.Item.history = false;
  assert.equal(errorsOf(m), [], 'without history the relation takes the path');
  delete m.entities.Item.relations;
  delete m.entities.Item.history;
  m.entities.Log = {
    collection: 'history', parent: { entity: 'Item', property: 'item_id' },
    properties: { id: { type: 'String', primary: true }, item_id: { type: 'String', references: 'Item' } },
  };
  rejects(m, '/entities/Log/collection', 'Name Collision', 'collection "history" under Item, which keeps history');
});

test('a relation, parent or projects without its entity is the schema\'s one error, not also an unknown entity "undefined"', () => {
  const m = base();
  m.entities.Item.relations = { links: { kind: 'manyToMany' } };
  m.entities.Item.parent = { property: 'name' };
  m.api.projects = { members: 'links' };
  const errors = errorsOf(m);
  assert.ok(errors.length > 0);
  assert.equal(errors.filter((e) => e.message.includes('undefined')), [], JSON.stringify(errors, null, 1));
});

test('more than one Status property', () => {
  const m = base();
  m.entities.Item.properties.phase = { type: 'String', modules: { Status: {} } };
  rejects(m, `${P}`, 'Single Status', 'found state, phase');
});

test('more than one Version property: the ETag and the body lock are one counter (spec 2.6)', () => {
  const m = base();
  m.entities.Item.properties.rev = { type: 'Number', modules: { Version: {} } };
  m.entities.Item.properties.seq = { type: 'Number', web: { format: 'int64' }, modules: { Version: {} } };
  rejects(m, `${P}`, 'Single Version', 'found rev, seq');
});

test('lifecycleStatus at the api level', () => {
  const m = base();
  m.api.scenarios = [{ label: 'Published', predicate: { style: 'and', children: [{ type: 'allowPublic' }, { type: 'lifecycleStatus', allowedStatuses: ['new'] }] } }];
  rejects(m, '/api/scenarios/0/predicate/children/1', 'Lifecycle Placement', 'not allowed at the API level');
});

test('lifecycleStatus without an identity rule in its scenario', () => {
  const m = base();
  m.entities.Item.scenarios = [{ label: 'Alone', predicate: { style: 'and', children: [{ type: 'lifecycleStatus', allowedStatuses: ['new'] }] } }];
  rejects(m, '/entities/Item/scenarios/0/predicate/children/0', 'Lifecycle Identity', 'pair it with an identity rule');
  // An or-branch of its own is not paired either, even if another branch has an identity rule.
  m.entities.Item.scenarios = [{ label: 'Branch', predicate: { style: 'or', children: [{ type: 'allowPublic' }, { type: 'lifecycleStatus', deniedStatuses: ['old'] }] } }];
  rejects(m, '/entities/Item/scenarios/0/predicate/children/1', 'Lifecycle Identity', 'identity rule');
  // Paired through an enclosing and-group: accepted.
  m.entities.Item.scenarios = [{ label: 'Paired', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, { style: 'or', children: [{ type: 'lifecycleStatus', deniedStatuses: ['old'] }] }] } }];
  assert.equal(errorsOf(m), []);
  // Paired with a group of identity rules beside it (every branch of an or names one): accepted.
  const either = { style: 'or', children: [{ type: 'matchUserRole', roles: ['editor'] }, { style: 'and', children: [{ type: 'allowAuthenticated' }, { type: 'matchIpAddress', cidrs: ['10.0.0.0/8'] }] }] };
  m.entities.Item.scenarios = [{ label: 'Grouped', predicate: { style: 'and', children: [either, { type: 'lifecycleStatus', deniedStatuses: ['old'] }] } }];
  assert.equal(errorsOf(m), []);
  // A group with a branch of data rules only is no pairing: that branch passes every caller in PRE_FETCH.
  const loose = { style: 'or', children: [{ type: 'matchUserRole', roles: ['editor'] }, { type: 'matchResourceAttribute', attribute: 'name', values: ['x'] }] };
  m.entities.Item.scenarios = [{ label: 'Loose', predicate: { style: 'and', children: [loose, { type: 'lifecycleStatus', deniedStatuses: ['old'] }] } }];
  rejects(m, '/entities/Item/scenarios/0/predicate/children/1', 'Lifecycle Identity', 'identity rule');
});

test('lifecycleStatus needs a Status property and known status values', () => {
  const m = base();
  delete m.entities.Item.properties.state.modules;
  m.entities.Item.scenarios = [{ label: 'S', predicate: { style: 'and', children: [{ type: 'allowPublic' }, { type: 'lifecycleStatus', allowedStatuses: ['new'] }] } }];
  rejects(m, '/entities/Item/scenarios/0/predicate/children/1', 'Lifecycle Target', 'exactly one property with the Status module');
  const n = base();
  n.entities.Item.scenarios = [{ label: 'S', predicate: { style: 'and', children: [{ type: 'allowPublic' }, { type: 'lifecycleStatus', allowedStatuses: ['gone'] }] } }];
  rejects(n, '/entities/Item/scenarios/0/predicate/children/1/allowedStatuses/0', 'Lifecycle Target', '"gone" is not a value of state');
});

test('format on a non-numeric property', () => {
  const m = base();
  m.entities.Item.properties.name.web = { format: 'int32' };
  rejects(m, `${P}/name/web/format`, 'Web Binding', 'format applies only to numeric properties');
});

test('fileTypes on a non-file property, or outside allowedMimeTypes', () => {
  const m = base();
  m.entities.Item.properties.name.web = { fileTypes: ['image/png'] };
  rejects(m, `${P}/name/web/fileTypes`, 'Web Binding', 'fileTypes applies only to FileURL or ImageURL');
  const n = base();
  n.entities.Item.properties.pic = { type: 'Binary', modules: { ImageURL: { allowedMimeTypes: ['image/png'] } }, web: { fileTypes: ['image/gif'] } };
  rejects(n, `${P}/pic/web/fileTypes`, 'Web Binding', '"image/gif" which allowedMimeTypes does not allow');
});

test('a web name that another property, web name, relation or owner key already has', () => {
  const m = base();
  m.entities.Item.properties.name.web = { name: 'state' };
  rejects(m, `${P}/name/web/name`, 'Name Collision', 'web name "state" is already the name of property "state"');
  const twice = base();
  twice.entities.Item.properties.name.web = { name: 'label' };
  twice.entities.Item.properties.state.web = { name: 'label' };
  rejects(twice, `${P}/state/web/name`, 'Name Collision', 'already the name of the web name of "name"');
  const rel = base();
  rel.entities.Item.relations = { detail: { kind: 'oneToOne', properties: { note: { type: 'String', web: { name: 'item_id' } } } } };
  rel.entities.Item.properties.name.web = { name: 'detail' };
  rejects(rel, `${P}/name/web/name`, 'Name Collision', 'already the name of relation "detail"');
  rejects(rel, '/entities/Item/relations/detail/properties/note/web/name', 'Name Collision', 'owner\'s key "item_id"');
  const own = base();
  own.entities.Item.properties.name.web = { name: 'name' };
  own.entities.Item.properties.state.web = { name: 'phase' };
  assert.equal(errorsOf(own), [], 'its own name, or a free one, is accepted');
});

test('an index path through an array', () => {
  const m = base();
  m.entities.Item.properties.data.index = { paths: [{ path: 'tags.k', cast: 'Text' }] };
  rejects(m, `${P}/data/index/paths/0`, 'JSON Index', 'Cannot index a sub-property of an array.');
});

test('an index path through an array a $ref names', () => {
  const m = base();
  m.entities.Item.properties.data.schema = { definitions: { list: { type: 'array', items: { type: 'object' } } }, type: 'object', properties: { tags: { $ref: '#/definitions/list' } } };
  m.entities.Item.properties.data.index = { paths: [{ path: 'tags.k', cast: 'Text' }] };
  rejects(m, `${P}/data/index/paths/0`, 'JSON Index', 'Cannot index a sub-property of an array.');
});

test('a JSON Schema whose local $ref cannot be inlined: recursive, not a JSON pointer, or pointing at nothing', () => {
  const cases: Array<[object, string]> = [
    [{ type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } }, 'a recursive schema cannot be inlined'],
    [{ definitions: { x: { $id: '#x', type: 'object' } }, $ref: '#x' }, 'is not a JSON pointer into this schema'],
    // Each level refers to the next twice: 2^30 schemas inlined, were the expansion not bounded.
    [{ definitions: Object.fromEntries([...Array.from({ length: 30 }, (_, i): [string, object] => [`d${i}`, { type: 'object', properties: { a: { $ref: `#/definitions/d${i + 1}` }, b: { $ref: `#/definitions/d${i + 1}` } } }]), ['d30', { type: 'string' }]]), $ref: '#/definitions/d0' }, 'would hold more than 10000 values'],
  ];
  for (const [schema, fragment] of cases) {
    const m = base();
    m.entities.Item.properties.data.schema = schema;
    rejects(m, `${P}/data/schema`, 'JSON Schema', fragment);
  }
  const ok = base();
  ok.entities.Item.properties.data.schema = { $id: 'https://example.com/item', definitions: { tag: { type: 'string' } }, type: 'object', properties: { a: { $ref: '#/definitions/tag' }, b: { $ref: 'https://example.com/item#/definitions/tag' } } };
  assert.equal(errorsOf(ok), []);
});

test('index type or cast on an array property', () => {
  for (const entry of [{ path: 'tags', cast: 'Text' }, { path: 'tags', type: 'btree' }]) {
    const m = base();
    m.entities.Item.properties.data.index = { paths: [entry] };
    rejects(m, `${P}/data/index/paths/0`, 'JSON Index', 'Index type and cast do not apply to an array property');
  }
  const ok = base();
  ok.entities.Item.properties.data.index = { whole: true, paths: [{ path: 'tags' }] };
  assert.equal(errorsOf(ok), []);
});

test('index options on a non-JSON property', () => {
  const m = base();
  m.entities.Item.properties.name.index = { whole: true };
  rejects(m, `${P}/name/index`, 'JSON Index', 'apply only to JSON properties');
});

test('references to or from a JSON key, or to an unknown entity', () => {
  const from = base();
  from.entities.Item.properties.data.references = 'Item';
  rejects(from, `${P}/data/references`, 'Foreign Key', 'Foreign keys cannot point to or from nested JSON keys.');
  const to = base();
  to.entities.Item.properties.other = { type: 'String', references: 'Item.data.k' };
  rejects(to, `${P}/other/references`, 'Foreign Key', 'nested JSON keys');
  const unknown = base();
  unknown.entities.Item.properties.owner = { type: 'String', references: 'Person' };
  rejects(unknown, `${P}/owner/references`, 'Unknown entity', '"Person"');
});

test('matchProjectStakeholder.via: a single reference to the key of an entity on the way to the project', () => {
  const withVia = (entity: string, props: Record<string, unknown>, via: string) => {
    const m = example('publishing');
    Object.assign(m.entities[entity].properties, props);
    m.entities[entity].scenarios = [{ label: 'S', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, { type: 'matchProjectStakeholder', via }] } }];
    return m;
  };
  const at = (entity: string) => `/entities/${entity}/scenarios/0/predicate/children/1/via`;
  // Each of these threw a TypeError in the compiler, or failed the migration (no app.tags_stakeholder_keys()).
  rejects(withVia('Comment', {}, 'body'), at('Comment'), 'Projects', '"body" on Comment references nothing');
  rejects(withVia('Tag', { owners: { type: 'String', multiple: true, references: 'Project' } }, 'owners'), at('Tag'), 'Projects', 'is multiple');
  rejects(withVia('Post', { tag_ref: { type: 'String', references: 'Tag' } }, 'tag_ref'), at('Post'), 'Projects', 'Tag, which "tag_ref" references, is not Project');
  rejects(withVia('Tag', { project_name: { type: 'String', references: 'Project.name' } }, 'project_name'), at('Tag'), 'Projects', 'references Project.name');
  rejects(withVia('Tag', {}, 'nothing'), at('Tag'), 'Unknown property', 'no property "nothing"');
  // An entity with no parent chain reaches the project through `via` (test/e2e/stakeholder-via.test.ts serves it).
  assert.equal(errorsOf(withVia('Tag', { project_id: { type: 'String', references: 'Project' } }, 'project_id')), []);
});

test('unknown rule names', () => {
  const m = base();
  m.entities.Item.scenarios[0].predicate.children.push({ type: 'matchMoonPhase' });
  rejects(m, '/entities/Item/scenarios/0/predicate/children/1', 'Unknown rule', '"matchMoonPhase"');
});

test('unknown module names', () => {
  const m = base();
  m.entities.Item.properties.name.modules = { Colour: {} };
  rejects(m, `${P}/name/modules/Colour`, 'Unknown module', '"Colour"');
});

test('unknown keys anywhere are errors', () => {
  const m = base();
  m.entities.Item.properties.name.colour = 'red';
  m.api.extra = true;
  rejects(m, `${P}/name/colour`, 'Unknown key', '"colour"');
  rejects(m, '/api/extra', 'Unknown key', '"extra"');
});

test('a scenario rule referring to a property that does not exist', () => {
  const m = base();
  m.entities.Item.scenarios = [
    { label: 'A', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, { type: 'matchResourceAttribute', attribute: 'colour', values: ['red'] }] } },
    { label: 'B', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, { type: 'matchResourceOwner', property: 'maker' }] } },
    { label: 'C', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, { type: 'matchResourceOwner' }] } },
  ];
  rejects(m, '/entities/Item/scenarios/0/predicate/children/1/attribute', 'Unknown property', '"colour"');
  rejects(m, '/entities/Item/scenarios/1/predicate/children/1/property', 'Unknown property', '"maker"');
  rejects(m, '/entities/Item/scenarios/2/predicate/children/1', 'Unknown property', 'Owner module');
});

test('matchResourceOwner on a property that is no single String, matchResourceAttribute on one that holds no single value', () => {
  const scenario = (rule: object) => [{ label: 'A', predicate: { style: 'and', children: [{ type: 'allowAuthenticated' }, rule] } }];
  const props: Record<string, object> = {
    n: { type: 'Number' }, d: { type: 'Date' }, tags: { type: 'String', multiple: true }, doc: { type: 'String', modules: { FileURL: {} } },
    pw: { type: 'String', modules: { Password: {} } },
  };
  for (const [name, prop] of Object.entries(props)) {
    const m = base();
    m.entities.Item.properties[name] = prop;
    m.entities.Item.scenarios = scenario({ type: 'matchResourceOwner', property: name });
    rejects(m, '/entities/Item/scenarios/0/predicate/children/1/property', 'Rule Target', 'needs a single String property');
  }
  for (const name of ['data', 'tags', 'doc', 'pw']) {
    const m = base();
    m.entities.Item.properties[name] ??= props[name];
    m.entities.Item.scenarios = scenario({ type: 'matchResourceAttribute', attribute: name, values: ['x'] });
    rejects(m, '/entities/Item/scenarios/0/predicate/children/1/attribute', 'Rule Target', 'needs a single String, Number');
  }
  const ok = base();
  ok.entities.Item.properties.n = props.n;
  ok.entities.Item.scenarios = [...scenario({ type: 'matchResourceAttribute', attribute: 'n', values: [1] }), ...scenario({ type: 'matchResourceOwner', property: 'name' })];
  ok.entities.Item.scenarios[1].label = 'B';
  assert.equal(errorsOf(ok), []);
});

test('matchResourceAttribute values the property cannot hold (spec 2.8: attribute in list of values) are model errors, not a failed migration', () => {
  const props: Record<string, object> = {
    n: { type: 'Number' }, i: { type: 'Number', web: { format: 'int32' } }, b: { type: 'Boolean' }, d: { type: 'Date' }, t: { type: 'Time' },
    e: { type: 'String', enum: ['a', 'b'] }, s: { type: 'String' },
  };
  const bad: Array<[string, unknown, string]> = [
    ['n', 'abc', 'must be a number'], // was: the migration failed, invalid input syntax for type numeric
    ['i', 1.5, 'does not fit the integer column'], // was: cast to 2, matching the records holding 2
    ['i', 99999999999, 'does not fit the integer column'], // was: every request on the entity failed, integer out of range
    ['b', 'yes', 'must be a boolean'],
    ['d', 'not a date', 'ISO 8601 Date'], ['d', '2024-02-30', 'ISO 8601 Date'], ['t', '25:00', 'ISO 8601 Time'],
    ['e', 'zzz', 'is not in the enum'],
    ['s', 'x'.repeat(256), 'longer than the 255 characters'], // was: cut to 255, matching the record holding the cut text
    ['s', 5, 'must be a string'],
  ];
  for (const [name, value, fragment] of bad) {
    const m = base();
    m.entities.Item.properties[name] = props[name];
    m.entities.Item.scenarios = [{ label: 'A', predicate: { style: 'and', children: [{ type: 'allowPublic' }, { type: 'matchResourceAttribute', attribute: name, values: ['e', 's'].includes(name) ? ['a', value] : [value] }] } }];
    rejects(m, `/entities/Item/scenarios/0/predicate/children/1/values/${['e', 's'].includes(name) ? 1 : 0}`, 'Rule Target', fragment);
  }
  const ok = base();
  Object.assign(ok.entities.Item.properties, props);
  const rule = (attribute: string, values: unknown[]) => ({ type: 'matchResourceAttribute', attribute, values });
  ok.entities.Item.scenarios = [{ label: 'A', predicate: { style: 'and', children: [{ type: 'allowPublic' },
    rule('n', [1.5, -2]), rule('i', [7]), rule('b', [true]), rule('d', ['2024-02-29']), rule('t', ['24:00', '08:30:15']), rule('e', ['b']), rule('s', ['x'.repeat(255)])] } }];
  assert.equal(errorsOf(ok), []);
});

test('other domain rules: primary key count, type-bound settings, reserved names, parents', () => {
  const m = base();
  m.entities.Item.properties.id.primary = false;
  rejects(m, `${P}`, 'Primary Key', 'exactly one primary property');
  const n = base();
  n.entities.Item.properties.name.minimum = 3;
  n.entities.Item.properties.name.multipleOf = 2;
  rejects(n, `${P}/name`, 'Validation Settings', 'minimum and maximum apply to numbers');
  rejects(n, `${P}/name/multipleOf`, 'Validation Settings', 'multipleOf applies only to Number');
  const r = base();
  r.entities.Item.softDelete = true;
  r.entities.Item.properties.deleted_at = { type: 'DateTime' };
  rejects(r, `${P}/deleted_at`, 'Reserved Name', 'system column');
  const p = base();
  p.entities.Item.parent = { entity: 'Shelf', property: 'shelf_id' };
  rejects(p, '/entities/Item/parent/entity', 'Unknown entity', '"Shelf"');
  rejects(p, '/entities/Item/parent/property', 'Unknown property', '"shelf_id"');
  const c = base();
  c.entities.Item.scenarios[0].predicate.children.push({ type: 'matchIpAddress', cidrs: ['10.0.0.0/33'] });
  rejects(c, '/entities/Item/scenarios/0/predicate/children/1/cidrs/0', 'Invalid CIDR', '10.0.0.0/33');
});

test('a readOnly key or required property the server does not fill, and a key that changes on every write', () => {
  for (const type of ['Date', 'Time', 'DateTime']) {
    const m = base();
    m.entities.Item.properties.id = { type, primary: true, readOnly: true };
    rejects(m, `${P}/id`, 'Write Lifecycle', 'a readOnly primary key needs a value the server fills');
  }
  const r = base();
  r.entities.Item.properties.code = { type: 'String', readOnly: true, required: true };
  rejects(r, `${P}/code`, 'Write Lifecycle', 'a readOnly required property needs a value the server fills');
  const filled = base();
  Object.assign(filled.entities.Item.properties, {
    code: { type: 'String', readOnly: true, required: true, defaultValue: 'x' },
    owner: { type: 'String', readOnly: true, required: true, modules: { Owner: {} } },
    at: { type: 'DateTime', readOnly: true, required: true, modules: { CreatedTimestamp: {} } },
  });
  filled.entities.Item.properties.id = { type: 'Number', primary: true, readOnly: true };
  assert.equal(errorsOf(filled), []);
  for (const [type, module] of [['Number', 'Version'], ['DateTime', 'UpdatedTimestamp']]) {
    const k = base();
    k.entities.Item.properties.id = { type, primary: true, modules: { [module!]: {} } };
    rejects(k, `${P}/id/modules`, 'Primary Key', `cannot carry ${module}: it changes on every write`);
  }
});

test('a Number default its integer column cannot hold', () => {
  const cases: Array<[object, string]> = [
    [{ type: 'Number', web: { format: 'int32' }, defaultValue: 3000000000 }, 'does not fit the integer column'],
    [{ type: 'Number', web: { format: 'int32' }, defaultValue: 1.5 }, 'does not fit the integer column'],
    [{ type: 'Number', web: { format: 'int64' }, defaultValue: 2 ** 63 }, 'does not fit the bigint column'],
    [{ type: 'Number', web: { format: 'int64' }, multiple: true, defaultValue: [1, 0.5] }, 'does not fit the bigint column'],
  ];
  for (const [prop, fragment] of cases) {
    const m = base();
    m.entities.Item.properties.n = prop;
    rejects(m, `${P}/n/defaultValue`, 'Validation Settings', fragment);
  }
  const ok = base();
  ok.entities.Item.properties.n = { type: 'Number', web: { format: 'int64' }, defaultValue: 3000000000 };
  ok.entities.Item.properties.d = { type: 'Number', defaultValue: 1.5 };
  assert.equal(errorsOf(ok), []);
});

test('patterns PostgreSQL cannot run, and defaults that break their own rules', () => {
  const patterns: Array<[string, string]> = [['^\\p{L}+$', 'Unicode property escapes'], ['^(?<word>\\w+)$', 'named groups']];
  for (const [pattern, what] of patterns) {
    const m = base();
    m.entities.Item.properties.name.pattern = pattern;
    rejects(m, `${P}/name/pattern`, 'Validation Settings', what);
  }
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ type: 'Number', maximum: 10, defaultValue: 20 }, 'above the maximum'],
    [{ type: 'Number', minimum: 0, exclusiveMinimum: true, defaultValue: 0 }, 'below the minimum'],
    [{ type: 'Number', multipleOf: 0.5, defaultValue: 0.3 }, 'not a multiple of 0.5'],
    [{ type: 'String', pattern: '^[a-z]+$', defaultValue: 'ABC' }, 'does not match the pattern'],
    [{ type: 'String', enum: ['a'], defaultValue: 'b' }, 'not in the enum'],
  ];
  for (const [prop, fragment] of cases) {
    const m = base();
    m.entities.Item.properties.extra = prop;
    rejects(m, `${P}/extra/defaultValue`, 'Validation Settings', fragment);
  }
  const ok = base();
  ok.entities.Item.properties.extra = { type: 'Number', multipleOf: 0.1, minimum: 0, defaultValue: 0.3 };
  assert.equal(errorsOf(ok), []);
});

test('the error message lists every problem with pointer and rule', () => {
  const m = base();
  m.entities.Item.properties.rev = { type: 'String', modules: { Version: {} } };
  try {
    compileModel(m);
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.instance(err, ModelValidationError);
    assert.match((err as Error).message, 'Semantic Data Alignment: Version needs an integer Number property (format int32, int64 or none), not String at /entities/Item/properties/rev/modules/Version');
  }
});

test('api.webhooks: known entities and change-log actions, unique names of [a-z][a-z0-9_]*, an http address or ${VARIABLE}', () => {
  const withHooks = (...webhooks: unknown[]) => ({ ...base(), api: { ...base().api, webhooks } });
  assert.equal(errorsOf(withHooks(
    { name: 'search', url: '${SEARCH_HOOK_URL}' },
    { name: 'mail_2', url: 'https://hooks.example.com/in', entities: ['Item'], actions: ['created', 'deleted', 'unlinked'] },
  )), []);
  rejects(withHooks({ name: 'search', url: 'https://x.example.com', entities: ['Item', 'Post'] }), '/api/webhooks/0/entities/1', 'Unknown entity', 'no entity named "Post" (known: Item)');
  rejects(withHooks({ name: 'search', url: 'https://x.example.com', actions: ['created', 'read'] }), '/api/webhooks/0/actions/1', 'Unknown action',
    'unknown action "read" (known: created, updated, deleted, restored, linked, unlinked)');
  rejects(withHooks({ name: 'a', url: 'https://x.example.com' }, { name: 'a', url: 'https://y.example.com' }), '/api/webhooks/1/name', 'Webhooks', 'the webhook name "a" is used twice');
  rejects(withHooks({ name: 'Search-Index', url: 'https://x.example.com' }), '/api/webhooks/0/name', 'Model schema', 'must match pattern');
  rejects(withHooks({ name: 'search', url: 'ftp://x.example.com' }), '/api/webhooks/0/url', 'Model schema', 'must match pattern');
  rejects(withHooks({ name: 'search', url: 'https://x.example.com', secret: 'inline' }), '/api/webhooks/0/secret', 'Unknown key', 'unknown key "secret"');
});

test.run();
