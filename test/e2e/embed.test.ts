// Embedded relations (issue 12 item 2): include=project (a reference), tags (manyToMany, with edges),
// profile (oneToOne) and nested paths (project.members), each read under its own entity's rules as the caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project = '';
let member = '';
const EMBED_ROWS = 2;
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: { maxEmbedRows: EMBED_ROWS } });
  project = dataOf(await api.post('/projects', { name: 'Embedded' }), 201).id;
  dataOf(await api.post('/posts', { id: 'e1', project_id: project, title: 'Public', status: 'draft' }), 201);
  dataOf(await api.patch('/posts/e1', { status: 'published' }), 200);
  for (const slug of ['c-tag', 'a-tag', 'b-tag']) {
    dataOf(await api.post('/tags', { slug, label: slug }), 201);
    expectStatus(await api.put(`/posts/e1/tags/${slug}`), 201);
  }
  member = dataOf(await api.post('/users', { email: 'member@example.com', password: 'secret-pw', display_name: 'Member' }), 201).id;
  expectStatus(await api.put(`/projects/${project}/members/${member}`, { role: 'editor', status: 'active' }), 201);
  expectStatus(await api.put(`/users/${member}/profile`, { bio: 'Writes' }, { token: await api.token({ sub: member }) }), 200);
});
test.after(async () => api?.close());

test('read: the project for a stakeholder, null for an anonymous reader', async () => {
  const mine = dataOf(await api.get('/posts/e1?include=project'));
  assert.is(mine.project?.name, 'Embedded');
  assert.is(mine.title, 'Public', 'every property stays when include names only embeds');
  const anon = dataOf(await api.get('/posts/e1?include=project', { token: null }));
  assert.is(anon.title, 'Public');
  assert.is(anon.project, null, 'the project is hidden from this caller');
  assert.not.ok('project' in dataOf(await api.get('/posts/e1')), 'no embed unless asked');
});

test('list and search embed per row; include with other names keeps them and the embed', async () => {
  const listed = await api.get('/posts?id=e1&include=id,project');
  assert.equal(listed.body.data, [{ id: 'e1', project: { id: project, name: 'Embedded', owner_id: 'u-admin' } }]);
  const anon = await api.get('/posts?id=e1&include=id,project', { token: null });
  assert.equal(anon.body.data, [{ id: 'e1', project: null }]);
  const found = await api.post('/posts/search', { where: { id: { eq: 'e1' } }, include: ['project', 'tags'] });
  assert.is(found.body.data[0].project.name, 'Embedded');
  assert.is(found.body.data[0].tags.length, EMBED_ROWS);
});

test('manyToMany: linked records by key with their edges, at most EMBED_MAX_ROWS', async () => {
  const tags = dataOf(await api.get('/posts/e1?include=tags')).tags;
  assert.equal(tags.map((t: { slug: string }) => t.slug), ['a-tag', 'b-tag'], 'the first EMBED_MAX_ROWS by key');
  assert.equal(tags[0].edge, {});
  const anon = dataOf(await api.get('/posts/e1?include=tags', { token: null }));
  assert.equal(anon.tags, tags, 'tags have a public Readers scenario');
});

test('oneToOne: the sub-resource as an object, every property null until written', async () => {
  const user = dataOf(await api.get(`/users/${member}?include=profile`));
  assert.is(user.profile.bio, 'Writes');
  assert.is(user.profile.user_id, member);
  const other = dataOf(await api.post('/users', { email: 'quiet@example.com', password: 'secret-pw' }), 201).id;
  const quiet = dataOf(await api.get(`/users/${other}?include=profile`));
  assert.equal(quiet.profile, { ...Object.fromEntries(Object.keys(user.profile).map((k) => [k, null])), user_id: other });
});

test('nested: project.members with edges, project.members.profile three levels deep', async () => {
  const post = dataOf(await api.get('/posts/e1?include=id,project.members.profile'));
  assert.equal(Object.keys(post).sort(), ['id', 'project']);
  const [m] = post.project.members;
  assert.is(m.id, member);
  assert.equal(m.edge, { role: 'editor', status: 'active' });
  assert.is(m.profile.bio, 'Writes');
  const both = dataOf(await api.get('/posts/e1?include=project,project.members'));
  assert.is(both.project.members.length, 1, 'a path and its prefix embed once');
  const anon = dataOf(await api.get('/posts/e1?include=project.members', { token: null }));
  assert.is(anon.project, null);
});

test('include paths the model does not have, too deep, or elsewhere are 400', async () => {
  for (const [path, said] of [
    ['/posts/e1?include=project.nope', 'Project embeds nothing named "nope"'],
    ['/posts/e1?include=tags.x', 'Tag embeds nothing named "x"'],
    ['/users/u1?include=profile.bio', 'a sub-resource embeds nothing'],
    ['/posts/e1?include=project.members.profile.more', 'at most 3 may nest (EMBED_MAX_DEPTH)'],
  ] as const) {
    const reply = await api.get(path);
    assertProblem(reply, 400, api.docsUrl);
    assert.match(reply.body.detail, said, path);
  }
  assert.is((await api.get('/posts/e1?exclude=project')).status, 400);
  assert.is((await api.patch('/posts/e1?include=project', { title: 'x' })).status, 400);
});

test('filters through a reference (project.name) judge the project by its own rules: no match when hidden', async () => {
  const other = dataOf(await api.post('/projects', { name: 'Other' }), 201).id;
  dataOf(await api.post('/posts', { id: 'o1', project_id: other, title: 'Elsewhere', status: 'draft' }), 201);
  dataOf(await api.patch('/posts/o1', { status: 'published' }), 200);
  const ids = (reply: { body: { data: Array<{ id: string }> } }) => reply.body.data.map((p) => p.id);
  assert.equal(ids(await api.get('/posts?project.name=Other&include=id')), ['o1']);
  assert.equal(ids(await api.get('/posts?project.name[like]=Oth*&include=id')), ['o1']);
  assert.equal(ids(await api.post('/posts/search', { where: { 'project.name': { eq: 'Other' } }, include: ['id'] })), ['o1']);
  assert.equal(ids(await api.get('/posts?id=o1&include=id', { token: null })), ['o1'], 'the anonymous reader sees the post');
  assert.equal(ids(await api.get('/posts?project.name=Other&include=id', { token: null })), [], 'but not through its hidden project');
  for (const path of ['/posts?project.nope=1', '/posts?project.owner_id.x=1', '/posts?tags.slug=a-tag', '/posts?sort=project.name']) {
    assertProblem(await api.get(path), 400, api.docsUrl);
  }
});

test('three levels of a fixture model: a hidden embedded record is null, hidden linked records are left out', async () => {
  const depth = await startApi('test/e2e/support/depth.model.json');
  try {
    dataOf(await depth.post('/regions', { id: 'r1', name: 'North' }), 201);
    dataOf(await depth.post('/regions/r1/sites', { id: 'open', visibility: 'open' }), 201);
    dataOf(await depth.post('/regions/r1/sites', { id: 'shut', visibility: 'closed' }), 201);
    dataOf(await depth.post('/regions/r1/sites/open/devices', { id: 'd1', name: 'Pump' }), 201);
    dataOf(await depth.post('/regions/r1/sites/shut/devices', { id: 'd2', name: 'Valve' }), 201);
    for (const [slug, visibility] of [['hot', 'open'], ['secret', 'closed']]) {
      dataOf(await depth.post('/labels', { slug, visibility }), 201);
      expectStatus(await depth.put(`/devices/d1/labels/${slug}`, {}), 201);
    }
    const admin = dataOf(await depth.get('/devices/d1?include=labels,site.region'));
    assert.equal(admin.labels.map((l: { slug: string }) => l.slug), ['hot', 'secret']);
    assert.is(admin.site.region.name, 'North');
    const user = { token: await depth.token({ sub: 'someone', roles: [] }) };
    const mine = dataOf(await depth.get('/devices/d1?include=labels,site.region', user));
    assert.equal(mine.labels.map((l: { slug: string }) => l.slug), ['hot'], 'the closed label is left out for this caller');
    assert.is(mine.site.region.name, 'North');
    const listed = await depth.get('/devices?include=id,site&sort=id', user);
    assert.equal(listed.body.data, [{ id: 'd1', site: { id: 'open', region_id: 'r1', visibility: 'open' } }, { id: 'd2', site: null }]);
    assert.equal((await depth.get('/devices?site.visibility=closed&include=id', user)).body.data, [], 'nor can a filter reach it');
    assert.equal((await depth.get('/devices?site.visibility=closed&include=id')).body.data, [{ id: 'd2' }]);
  } finally {
    await depth.close();
  }
});

test('one statement: the statements a list runs do not grow with its rows (no N+1)', async () => {
  for (let i = 0; i < 12; i++) dataOf(await api.post('/posts', { id: `n${i}`, project_id: project, title: `N${i}` }), 201);
  for (let i = 0; i < 12; i++) expectStatus(await api.put(`/posts/n${i}/tags/a-tag`), 201);
  const explained = async (perPage: number) => {
    const plans: string[] = [];
    const { default: postgres } = await import('postgres');
    const sql = postgres(api.db.url, { max: 1, onnotice: (n) => { if (String(n.message).includes('Query Text')) plans.push(String(n.message)); } });
    try {
      await sql.begin(async (tx) => {
        await tx`LOAD 'auto_explain'`;
        await tx`SET LOCAL auto_explain.log_min_duration = 0`;
        await tx`SET LOCAL auto_explain.log_nested_statements = on`;
        await tx`SET LOCAL auto_explain.log_level = notice`;
        const args = { embed: { project: { members: {} }, tags: {} }, embed_limit: 100, per_page: perPage };
        const [row] = await tx`select api.dispatch('authenticated', ${tx.json({ sub: 'u-admin', roles: ['admin'] })}, '127.0.0.1', 'posts_list', ${tx.json(args)}) as r`;
        assert.is((row!.r as { data: unknown[] }).data.length, perPage);
      });
    } finally {
      await sql.end();
    }
    return plans;
  };
  const few = await explained(2), many = await explained(12);
  assert.is(many.length, few.length, 'as many statements for 12 rows as for 2');
  const main = many.filter((p) => p.includes('jsonb_agg') && p.includes('"app"."projects"') && p.includes('"app"."posts_tags"'));
  assert.is(main.length, 1, 'the page, its projects, members and tags come from one statement');
  assert.match(main[0]!, 'SubPlan');
});

test.run();
