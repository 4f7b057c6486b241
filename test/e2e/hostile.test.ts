// Hundreds of malformed and hostile requests (tables in support/hostile-cases.ts) against a seeded
// publishing API: none may answer 500 or succeed, each answers a problem document, no data changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus, type Reply } from './support/http.ts';
import { hostileCases, hostileReads, type HostileCase, type Targets } from './support/hostile-cases.ts';
import { problemIssues } from './support/problem.ts';
import { snapshot, type Snapshot } from './support/snapshot.ts';
import { startApi, type RunningApi } from './support/server.ts';

// 403: an access scenario refuses the request (e.g. a post for a project the caller has no stake in).
const REFUSALS = [400, 401, 403, 404, 405, 409, 413, 415, 422];

let api: RunningApi;
let targets: Targets;
let before: Snapshot;
let sent = 0;

test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  const project = dataOf(await api.post('/projects', { name: 'Target' }), 201).id;
  const otherProject = dataOf(await api.post('/projects', { name: 'Other' }), 201).id;
  const user = dataOf(await api.post('/users', { email: 'victim@example.com', password: 'secret-pw', display_name: 'Victim' }), 201).id;
  dataOf(await api.post('/posts', { id: 'h1', project_id: project, title: 'Target post', body: 'quick brown fox', meta: { address: { city: 'Paris' }, priority: 3 } }), 201);
  dataOf(await api.post('/tags', { slug: 'news', label: 'News' }), 201);
  expectStatus(await api.put('/posts/h1/tags/news'), 201);
  expectStatus(await api.put(`/projects/${project}/members/${user}`, { role: 'editor', status: 'active' }), 201);
  expectStatus(await api.put(`/users/${user}/profile`, { bio: 'Bio' }, { token: await api.token({ sub: user }) }), 200);
  const comment = dataOf(await api.post('/posts/h1/comments', { body: 'A comment' }), 201).id;
  targets = { project, otherProject, post: 'h1', user, tag: 'news', comment };
  before = await snapshot(api.db.sql);
});
test.after(async () => api?.close());

async function send(c: HostileCase): Promise<Reply> {
  sent++;
  return c.absolute ? api.callAbsolute(c.method, c.path, c.opts) : api.call(c.method, c.path, c.opts);
}

const label = (c: HostileCase) => `${c.method} ${c.path.slice(0, 120)}${c.opts?.body !== undefined ? ` ${JSON.stringify(c.opts.body).slice(0, 120)}` : ''}${typeof c.opts?.raw === 'string' ? ` ${c.opts.raw.slice(0, 80)}` : ''}${c.opts?.headers ? ` ${JSON.stringify(c.opts.headers).slice(0, 80)}` : ''}`;

/** Sends every case of `group`; returns one line per case that broke the contract. */
async function runGroup(group: string): Promise<string[]> {
  const cases = hostileCases(targets).filter((c) => c.group === group);
  assert.ok(cases.length > 0, `no cases in ${group}`);
  const wrong: string[] = [];
  for (const c of cases) {
    let reply: Reply;
    try {
      reply = await send(c);
    } catch (err) {
      wrong.push(`${label(c)}: the request failed: ${(err as Error).message}`);
      continue;
    }
    if (!REFUSALS.includes(reply.status)) {
      wrong.push(`${label(c)}: HTTP ${reply.status} ${reply.text.slice(0, 160)}`);
      continue;
    }
    const issues = problemIssues(reply, api.docsUrl);
    if (issues.length > 0) wrong.push(`${label(c)}: HTTP ${reply.status} ${issues.join('; ')}`);
  }
  return wrong;
}

const GROUPS = ['bad JSON', 'not an object', 'wrong types', 'unknown keys', 'hostile names', 'typed values', 'operators',
  'deep nesting', 'paging', 'repeated', 'paths', 'methods', 'media', 'tokens'];

for (const group of GROUPS) {
  test(`${group}: refused with 4xx problem documents, never a 500`, async () => {
    const wrong = await runGroup(group);
    assert.equal(wrong, [], `${wrong.length} requests broke the contract:\n${wrong.join('\n')}`);
  });
}

test('reads with SQL, wildcards, NUL and unicode in string values answer normally and match nothing they should not', async () => {
  const wrong: string[] = [];
  for (const r of hostileReads(targets)) {
    sent++;
    const reply = await api.call(r.method, r.path, r.opts);
    const what = `${r.method} ${r.path.slice(0, 120)}${r.opts?.body ? ` ${JSON.stringify(r.opts.body).slice(0, 120)}` : ''}`;
    if (reply.status === 400 && r.mayRefuse) {
      const issues = problemIssues(reply, api.docsUrl);
      if (issues.length) wrong.push(`${what}: ${issues.join('; ')}`);
      continue;
    }
    if (reply.status !== 200) {
      wrong.push(`${what}: HTTP ${reply.status} ${reply.text.slice(0, 160)}`);
      continue;
    }
    const body = reply.body;
    if (!body || (Array.isArray(body.data) ? typeof body.meta?.total !== 'number' : typeof body.data !== 'object')) {
      wrong.push(`${what}: not a data reply: ${reply.text.slice(0, 160)}`);
    } else if (r.zero && (body.data.length !== 0 || body.meta.total !== 0)) {
      wrong.push(`${what}: matched ${body.meta.total} rows`);
    } else if (r.emptyPage && body.data.length !== 0) {
      wrong.push(`${what}: a page past the end holds ${body.data.length} rows`);
    }
  }
  assert.equal(wrong, [], `${wrong.length} reads broke the contract:\n${wrong.join('\n')}`);
});

test('the batch held 200+ requests and changed no data in any app.* table', async () => {
  assert.ok(sent >= 200, `only ${sent} requests were sent`);
  const after = await snapshot(api.db.sql);
  assert.ok(Object.keys(before).length >= 7, `tables: ${Object.keys(before)}`);
  assert.equal(after, before);
  for (const [table, { rows }] of Object.entries(before)) assert.ok(rows > 0, `${table} was seeded`);
});

test('no prototype was polluted in the gateway process', () => {
  const probe: Record<string, unknown> = {};
  assert.is(probe.polluted, undefined);
  assert.not.ok(Object.hasOwn(Object.prototype, 'polluted'));
  assert.is(({} as { prototype?: unknown }).prototype, undefined);
});

test('the gateway logged no 5xx while the batch ran', () => {
  assert.equal(api.serverErrors.map((e) => e.split('\n')[0]), []);
});

test.run();
