// A typed client generated from the served document: openapi-typescript 7 with its default flags writes
// the types, a small program uses openapi-fetch against the running gateway (create, read, list with a
// filter, patch, a stale If-Match, a bulk create); the program must type-check (tsc, strict) and run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientFolder, openapiTS } from './support/typed-client.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';

let api: RunningApi;
let folder: ClientFolder | undefined;

test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  folder = new ClientFolder('spec-client');
});
test.after(async () => {
  await api?.close();
  folder?.remove();
});


const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

const client = createClient<paths>({ baseUrl: process.env.API_BASE!, headers: { Authorization: \`Bearer \${process.env.API_TOKEN}\` } });
const project = await client.POST('/projects', { body: { name: 'Typed client' } });
if (!project.data) throw new Error(\`create project: \${project.error?.detail}\`);
const projectId: string = project.data.data.id!;
const created = await client.POST('/projects/{project_id}/posts', {
  params: { path: { project_id: projectId } },
  body: { id: 'typed-1', title: 'Hello', rating: 4.5, meta: { priority: 3, address: { city: 'Paris' } } },
});
if (created.error) throw new Error(\`create post: \${created.error.code}\`);
const tags = await client.POST('/tags/bulk', { body: [{ slug: 'typed-a', label: 'A' }, { slug: 'typed-b', label: 'B' }] });
const slugs: string[] = (tags.data?.data ?? []).map((t) => t.slug ?? '');
const read = await client.GET('/posts/{id}', { params: { path: { id: 'typed-1' } } });
const etag = read.response.headers.get('ETag') ?? '';
const title: string | undefined = read.data?.data.title;
const list = await client.GET('/posts', { params: { query: { title: { eq: 'Hello' }, rating: { gte: 4 }, sort: '-meta.priority,title', per_page: 10 } } });
const total: number = list.data?.meta.total ?? -1;
const patched = await client.PATCH('/posts/{id}', {
  params: { path: { id: 'typed-1' }, header: { 'If-Match': etag } },
  body: { title: 'Hi', meta: { address: { city: 'Oslo' } } },
});
const stale = await client.PATCH('/posts/{id}', { params: { path: { id: 'typed-1' }, header: { 'If-Match': etag } }, body: { title: 'Again' } });
console.log(JSON.stringify({
  created: created.response.status, slugs, title, etag, total, listed: list.data?.data.map((p) => p.id),
  patched: patched.response.status, version: patched.data?.data.version, city: patched.data?.data.meta,
  stale: stale.response.status, staleCode: stale.error?.code,
}));
`;


test('openapi-typescript types + openapi-fetch: the program type-checks and runs against the gateway', async () => {
  const served = await api.get('/openapi.json');
  assert.is(served.status, 200);
  const types = await openapiTS(served.body);
  const checked = folder!.check(types, PROGRAM);
  assert.is(checked.status, 0, `tsc: ${checked.stdout}${checked.stderr}`);

  // A wrong body type is a type error: the types are really checked.
  const wrong = folder!.check(types, PROGRAM.replace("title: 'Hello', rating", 'title: 42, rating'));
  assert.match(wrong.stdout, 'error TS2322');
  folder!.check(types, PROGRAM);

  const out = await folder!.run(api);
  assert.equal(out, {
    created: 201, slugs: ['typed-a', 'typed-b'], title: 'Hello', etag: '"1"', total: 1, listed: ['typed-1'],
    patched: 200, version: 2, city: { priority: 3, address: { city: 'Oslo' } },
    stale: 412, staleCode: 'E_PRECONDITION_FAILED',
  });
  assert.equal(api.serverErrors, []);
});

test.run();
