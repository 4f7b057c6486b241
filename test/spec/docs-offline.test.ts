// The reference page works offline with a pinned Scalar (issue 14): the page names no absolute address and turns the
// web fonts off, and its script is byte for byte the browser bundle of the exact version package.json and the lock pin.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root } from '../harness/child.ts';
import { call, startApi, type Api } from '../server/setup.ts';
import { startApi as startServed } from '../e2e/support/server.ts';

let api: Api;
test.before(async () => {
  api = await startApi();
});
test.after(async () => api?.close());

const json = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

test('the page loads nothing from another origin and asks for no web fonts', async () => {
  const page = await call(api.app, 'GET', '/api/publishing/v1/docs');
  assert.is(page.status, 200);
  assert.equal(page.text.match(/(?:src|href)\s*=\s*"[^"]*"/g), ['src="/api/publishing/v1/docs/scalar.js"']);
  assert.not.match(page.text, /https?:\/\//, 'no absolute address in the page');
  assert.match(page.text, /"withDefaultFonts":\s*false/);
});

test('the page turns Scalar\'s hosted-product chrome off: no AI agent, no MCP, no developer toolbar, no telemetry', async () => {
  const page = await call(api.app, 'GET', '/api/publishing/v1/docs');
  const config = JSON.parse(/Scalar\.createApiReference\('#app', (\{[\s\S]*\})\)\s*<\/script>/.exec(page.text)?.[1] ?? 'null');
  assert.ok(config, page.text.slice(0, 2000));
  assert.equal(config.agent, { disabled: true });
  assert.equal(config.mcp, { disabled: true });
  assert.is(config.showDeveloperTools, 'never');
  assert.is(config.telemetry, false);
});

test('the API\'s base address answers with links to its documents and collections, not 404', async () => {
  const base = await call(api.app, 'GET', '/api/publishing/v1');
  assert.is(base.status, 200);
  const body = JSON.parse(base.text);
  assert.is(body.title, 'Publishing API');
  assert.is(body.links.docs, '/api/publishing/v1/docs');
  assert.is(body.links.openapi, '/api/publishing/v1/openapi.json');
  assert.is(body.links.raml, '/api/publishing/v1/api.raml');
  assert.is(body.links.collections.posts, '/api/publishing/v1/posts');
  for (const href of [body.links.openapi, body.links.docs, body.links.collections.posts]) {
    assert.is((await call(api.app, 'GET', href)).status, 200, href);
  }
});

test('the script is the pinned @scalar/api-reference browser bundle, served as it is installed', async () => {
  const pinned = json('package.json').devDependencies['@scalar/api-reference'];
  assert.match(pinned, /^\d+\.\d+\.\d+$/, `an exact version, not a range: ${pinned}`);
  assert.is(json('package-lock.json').packages['node_modules/@scalar/api-reference'].version, pinned, 'the lock agrees');
  const main = fileURLToPath(import.meta.resolve('@scalar/api-reference'));
  const installedDir = join(dirname(main), '..');
  assert.is(JSON.parse(readFileSync(join(installedDir, 'package.json'), 'utf8')).version, pinned, 'node_modules holds the pinned version');
  const script = await call(api.app, 'GET', '/api/publishing/v1/docs/scalar.js');
  assert.is(script.status, 200);
  assert.is(script.text, readFileSync(join(dirname(main), 'browser/standalone.js'), 'utf8'));
});

test('the model\'s title is text in the page, not markup (Scalar writes the page title as it is given)', async () => {
  const model = json('examples/publishing.model.json');
  model.api.title = 'Pub </title><script>alert(1)</script>';
  const served = await startServed(model);
  try {
    const page = await served.callAbsolute('GET', `${served.basePath}/docs`, { token: null });
    assert.is(page.status, 200);
    assert.not.match(page.text, '<script>alert(1)</script>');
    assert.match(page.text, '<title>Pub &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; reference</title>');
  } finally {
    await served.close();
  }
});

test.run();
