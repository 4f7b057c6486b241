// A typed client generated from the served document: openapi-typescript 7 with its default flags writes
// the types, a small program uses openapi-fetch against the running gateway (create, read, list with a
// filter, patch, a stale If-Match); the program must type-check (tsc, strict) and run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { root } from '../harness/child.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';

let api: RunningApi;
// Under node_modules so that the program resolves openapi-fetch like the project does.
const cache = join(root, 'node_modules', '.cache');
let dir = '';

test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'spec-client-'));
});
test.after(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * openapi-typescript 7 needs TypeScript 5's compiler API, which the project's TypeScript 7 lacks: it lives
 * in the tools/typed-client workspace with its own TypeScript 5.
 */
async function openapiTS(document: unknown): Promise<string> {
  const workspace = createRequire(join(root, 'tools/typed-client/package.json'));
  const { default: generate, astToString } = await import(pathToFileURL(workspace.resolve('openapi-typescript')).href) as {
    default: (doc: unknown) => Promise<unknown>; astToString: (ast: unknown) => string;
  };
  return astToString(await generate(document));
}

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.ts';

const client = createClient<paths>({ baseUrl: process.env.API_BASE!, headers: { Authorization: \`Bearer \${process.env.API_TOKEN}\` } });
const project = await client.POST('/projects', { body: { name: 'Typed client' } });
if (!project.data || Array.isArray(project.data.data)) throw new Error(\`create project: \${project.error?.detail}\`);
const projectId: string = project.data.data.id!;
const created = await client.POST('/projects/{project_id}/posts', {
  params: { path: { project_id: projectId } },
  body: { id: 'typed-1', title: 'Hello', rating: 4.5, meta: { priority: 3, address: { city: 'Paris' } } },
});
if (created.error) throw new Error(\`create post: \${created.error.code}\`);
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
  created: created.response.status, title, etag, total, listed: list.data?.data.map((p) => p.id),
  patched: patched.response.status, version: patched.data?.data.version, city: patched.data?.data.meta,
  stale: stale.response.status, staleCode: stale.error?.code,
}));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
    allowImportingTsExtensions: true, skipLibCheck: true, types: ['node'],
  },
  files: ['client.ts'],
};

test('openapi-typescript types + openapi-fetch: the program type-checks and runs against the gateway', async () => {
  const served = await api.get('/openapi.json');
  assert.is(served.status, 200);
  writeFileSync(join(dir, 'api.ts'), await openapiTS(served.body));
  writeFileSync(join(dir, 'client.ts'), PROGRAM);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}');

  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const checked = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.is(checked.status, 0, `tsc: ${checked.stdout}${checked.stderr}`);

  // A wrong body type is a type error: the types are really checked.
  writeFileSync(join(dir, 'client.ts'), PROGRAM.replace("title: 'Hello', rating", 'title: 42, rating'));
  const wrong = spawnSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.match(wrong.stdout, 'error TS2322');
  writeFileSync(join(dir, 'client.ts'), PROGRAM);

  // Asynchronously: the gateway answers from this very process.
  const env = { ...process.env, API_BASE: api.origin + api.basePath, API_TOKEN: await api.token() };
  const stdout = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(dir, 'client.ts')], { cwd: root, env, encoding: 'utf8', timeout: 60_000 })
    .then((r) => r.stdout, (err: { stdout?: string; stderr?: string; message: string }) => `FAILED ${err.message} ${err.stdout} ${err.stderr}`);
  assert.not.ok(stdout.startsWith('FAILED'), stdout);
  const out = JSON.parse(stdout.trim().split('\n').pop()!);
  assert.equal(out, {
    created: 201, title: 'Hello', etag: '"1"', total: 1, listed: ['typed-1'],
    patched: 200, version: 2, city: { priority: 3, address: { city: 'Oslo' } },
    stale: 412, staleCode: 'E_PRECONDITION_FAILED',
  });
  assert.equal(api.serverErrors, []);
});

test.run();
