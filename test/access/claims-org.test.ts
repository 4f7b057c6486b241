// Claim paths for sub, org, org_roles, enterprise and enterprise_roles (issue 13): tokens that keep them
// nested or namespaced pass EnterpriseRBAC rules only once each JWT_CLAIM_<NAME> is set.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Hono } from 'hono';
import { createApp } from '../../server/app.ts';
import { claimPathsFromEnv } from '../../server/request/claims.ts';
import { testApi } from '../harness/fixtures.ts';
import { SECRET, call, startApi, token, type Api } from '../server/setup.ts';

const NS = 'https://ent.example.com';
const model = {
  api: {
    ...testApi('entclaims'), strategy: 'EnterpriseRBAC',
    scenarios: [{ label: 'Accountants keep the books', predicate: { style: 'and', children: [{ type: 'matchOrganizationRole', roles: ['accountant'] }] } }],
  },
  entities: {
    Ledger: {
      collection: 'ledgers',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        name: { type: 'String', required: true },
        owner_id: { type: 'String', modules: { Owner: {} } },
      },
    },
  },
};

/** Where this provider keeps each claim (the environment an operator would set). */
const ENV = {
  JWT_CLAIM_SUB: 'ext.uid',
  JWT_CLAIM_ORG: `"${NS}/org"`,
  JWT_CLAIM_ORG_ROLES: 'app_metadata.org_roles',
  JWT_CLAIM_ENTERPRISE: 'tenancy.enterprise.id',
  JWT_CLAIM_ENTERPRISE_ROLES: '.tenancy.enterprise.roles',
} as const;

/** An organization role, kept where the provider keeps it (no top-level sub, org or org_roles). */
const orgRole = (uid: string) => ({ ext: { uid }, [`${NS}/org`]: 'o1', app_metadata: { org_roles: ['accountant'] } });
/** No organization role: an enterprise role instead, nested two levels deep. */
const enterpriseRole = (uid: string) => ({
  ext: { uid }, [`${NS}/org`]: 'o1', app_metadata: { org_roles: [] as string[] },
  tenancy: { enterprise: { id: 'acme', roles: ['accountant'] } },
});

let api: Api;
const app = (env: Record<string, string>): Hono =>
  createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, claimPaths: claimPathsFromEnv(env), log: (_m, err) => void api.logged.push(err) });

test.before(async () => {
  api = await startApi(model);
});
test.after(async () => api?.close());

const create = async (on: Hono, payload: Record<string, unknown>, name: string) =>
  call(on, 'POST', '/api/entclaims/v1/ledgers', { bearer: await token(payload), body: { name } });

test('every mapped claim reaches the rules and the Owner module: sub, org, org_roles', async () => {
  const made = await create(app(ENV), orgRole('kc-7'), 'Q1');
  assert.is(made.status, 201, made.text);
  const [row] = await api.db.sql`select organization_id, owner_id from app.ledgers where id = ${made.json.data.id}`;
  assert.equal({ ...row }, { organization_id: 'o1', owner_id: 'kc-7' }, 'org and sub come from their paths');
});

test('enterprise and enterprise_roles from their paths', async () => {
  const made = await create(app(ENV), enterpriseRole('kc-8'), 'Q2');
  assert.is(made.status, 201, made.text);
  assert.is(made.json.data.owner_id, 'kc-8');
  const listed = await call(app(ENV), 'GET', '/api/entclaims/v1/ledgers', { bearer: await token(enterpriseRole('kc-8')) });
  assert.is(listed.status, 200, listed.text);
  assert.ok(listed.json.meta.total >= 1);
});

test('each path is needed: without it the claim is not seen', async () => {
  const without = (name: keyof typeof ENV) => app(Object.fromEntries(Object.entries(ENV).filter(([k]) => k !== name)));
  assert.is((await create(without('JWT_CLAIM_SUB'), orgRole('kc-9'), 'x')).status, 401, 'no sub at the top level: not a valid caller');
  assert.is((await create(without('JWT_CLAIM_ORG'), orgRole('kc-9'), 'x')).status, 403);
  assert.is((await create(without('JWT_CLAIM_ORG_ROLES'), orgRole('kc-9'), 'x')).status, 403);
  assert.is((await create(without('JWT_CLAIM_ENTERPRISE'), enterpriseRole('kc-9'), 'x')).status, 403);
  assert.is((await create(without('JWT_CLAIM_ENTERPRISE_ROLES'), enterpriseRole('kc-9'), 'x')).status, 403);
  assert.is((await create(api.app, orgRole('kc-9'), 'x')).status, 401, 'no mapping at all');
  const [row] = await api.db.sql`select count(*)::int as n from app.ledgers where name = 'x'`;
  assert.is(row!.n, 0, 'nothing was written by a refused caller');
});

test('a single string where a list is expected is a list of one; top-level claims still work beside the paths', async () => {
  const single = { ext: { uid: 'kc-10' }, [`${NS}/org`]: 'o1', app_metadata: { org_roles: 'accountant' } };
  assert.is((await create(app(ENV), single, 'Q3')).status, 201);
  const plain = { sub: 'own-1', org: 'o1', org_roles: ['accountant'] }; // npm run token's shape
  const made = await create(app(ENV), plain, 'Q4');
  assert.is(made.status, 201, made.text);
  assert.is(made.json.data.owner_id, 'own-1');
});

test('no mapped token reached a 5xx', () => {
  assert.equal(api.logged, []);
});

test.run();
