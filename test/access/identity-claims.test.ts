// The claims of tokens issued by /auth/token come from the user record as api.identity says: roles from a
// multiple String property or from a manyToMany relation, org and org_roles from properties; and they are
// read again on every refresh, so a role granted or withdrawn shows in the next access token.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { call, startApi, type Api } from '../server/setup.ts';

const everyone = [{ label: 'Everyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }];

function model(identity: Record<string, unknown>) {
  return {
    api: { slug: 'idp', version: 'v1', title: 'Idp', docsUrl: 'https://docs.example.com', strategy: 'RBAC', identity, scenarios: everyone },
    entities: {
      Role: { collection: 'roles', properties: { name: { type: 'String', primary: true } } },
      Member: {
        collection: 'members',
        properties: {
          id: { type: 'Number', primary: true, readOnly: true },
          email: { type: 'String', required: true, unique: true, modules: { Email: {} } },
          password: { type: 'String', required: true, modules: { Password: {} } },
          roles: { type: 'String', multiple: true },
          team: { type: 'String' },
          team_roles: { type: 'String', multiple: true },
        },
        relations: { grants: { kind: 'manyToMany', entity: 'Role' } },
      },
    },
  };
}

let byProperty: Api;
let byRelation: Api;
test.before(async () => {
  byProperty = await startApi(model({ entity: 'Member', roles: 'roles', org: 'team', orgRoles: 'team_roles' }));
  byRelation = await startApi(model({ entity: 'Member', roles: 'grants' }));
});
test.after(async () => {
  await byProperty?.close();
  await byRelation?.close();
});

const signIn = async (api: Api) => {
  const r = await call(api.app, 'POST', '/api/idp/v1/auth/token', { body: { email: 'm@example.com', password: 'pw-123456' } });
  assert.is(r.status, 200, r.text);
  return r.json as { access_token: string; refresh_token: string };
};

test('roles, org and org_roles from properties; a Number key is the sub as text', async () => {
  const created = await call(byProperty.app, 'POST', '/api/idp/v1/members',
    { body: { email: 'M@example.com', password: 'pw-123456', roles: ['editor'], team: 't1', team_roles: ['owner'] } });
  assert.is(created.status, 201, created.text);
  const first = await signIn(byProperty);
  const claims = decodeJwt(first.access_token);
  assert.equal([claims.sub, claims.email, claims.roles, claims.org, claims.org_roles], [String(created.json.data.id), 'm@example.com', ['editor'], 't1', ['owner']]);
  await byProperty.db.sql`update app.members set roles = '{editor,admin}'`;
  const next = await call(byProperty.app, 'POST', '/api/idp/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
  assert.equal(decodeJwt(next.json.access_token).roles, ['editor', 'admin'], 'a refresh reads the record again');
});

test('roles from a manyToMany relation: the linked keys', async () => {
  const id = (await call(byRelation.app, 'POST', '/api/idp/v1/members', { body: { email: 'm@example.com', password: 'pw-123456' } })).json.data.id;
  assert.equal(decodeJwt((await signIn(byRelation)).access_token).roles, []);
  for (const name of ['reviewer', 'author']) {
    assert.is((await call(byRelation.app, 'POST', '/api/idp/v1/roles', { body: { name } })).status, 201);
    assert.is((await call(byRelation.app, 'PUT', `/api/idp/v1/members/${id}/grants/${name}`, { body: {} })).status, 201);
  }
  assert.equal(decodeJwt((await signIn(byRelation)).access_token).roles, ['author', 'reviewer']);
});

test('no 5xx', () => {
  assert.equal([...byProperty.logged, ...byRelation.logged], []);
});

test.run();
