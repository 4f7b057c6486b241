// Upload intents one caller may hold open at once (lib.open_intents_at_most): past them 429 with Retry-After,
// another caller is not held to them, and an intent attached (used) frees its place.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProblem } from '../e2e/support/problem.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { dataOf, intent, PNG, upload } from './support.ts';

let api: RunningApi;
let cap = 0;
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  cap = Number((await api.db.sql`select lib.open_intents_at_most() as n`)[0]!.n);
});
test.after(async () => api?.close());

test('past the open intents a caller may hold: 429 with Retry-After; others still get theirs; attaching one frees a place', async () => {
  const project = dataOf(await api.post('/projects', { name: 'Intents' }), 201).id;
  const first = await upload(api, { name: 'first.png', bytes: PNG });
  for (let i = 1; i < cap; i++) dataOf(await intent(api, `f${i}.png`, 'image/png'), 201);
  const refused = await intent(api, 'one-more.png', 'image/png');
  assertProblem(refused, 429, api.docsUrl, { code: 'E_TOO_MANY_REQUESTS' });
  assert.is(refused.headers.get('retry-after'), '60');
  assert.match(refused.body.detail, `${cap} upload intents open`);
  const other = await api.token({ sub: 'someone-else', roles: ['admin'] });
  dataOf(await intent(api, 'theirs.png', 'image/png', other), 201);
  dataOf(await api.post(`/projects/${project}/posts`, { id: 'with-cover', title: 'Cover', cover: first.ref }), 201);
  dataOf(await intent(api, 'now-fits.png', 'image/png'), 201);
});

test.run();
