// RATE_LIMIT_REQUESTS / RATE_LIMIT_WINDOW_SECONDS: a caller past its requests in the window gets 429 with
// Retry-After, counted per caller (a token's sub; an anonymous or bad-token caller by its address), others not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

const REQUESTS = 5;
let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: { rateLimitRequests: REQUESTS, rateLimitWindowSeconds: 60 }, trustProxy: true });
});
test.after(async () => api?.close());

test('past its requests in the window a caller gets 429 with Retry-After; another caller still gets answers', async () => {
  const ann = await api.token({ sub: 'ann', roles: ['editor'] });
  const bob = await api.token({ sub: 'bob', roles: ['editor'] });
  for (let i = 0; i < REQUESTS; i++) assert.is((await api.get('/tags', { token: ann })).status, 200);
  const refused = await api.get('/tags', { token: ann });
  assertProblem(refused, 429, api.docsUrl, { code: 'E_TOO_MANY_REQUESTS', names: ['RATE_LIMIT_REQUESTS'] });
  const wait = Number(refused.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.is((await api.post('/tags', { slug: 'late', label: 'Late' }, { token: ann })).status, 429, 'writes count against the same caller');
  assert.is((await api.get('/tags', { token: bob })).status, 200, 'another caller is not held back');
  assert.is((await api.get('/tags', { token: await api.token({ sub: 'ann', roles: ['admin'] }) })).status, 429, 'a new token of the same sub is the same caller');
  assert.equal(api.serverErrors, []);
});

test('anonymous callers and bad tokens are counted by address', async () => {
  const from = (ip: string, token: string | null) => api.get('/tags', { token, headers: { 'X-Forwarded-For': ip } });
  for (let i = 0; i < REQUESTS; i++) assert.is((await from('10.1.1.1', null)).status, 200);
  assert.is((await from('10.1.1.1', null)).status, 429);
  assert.is((await from('10.1.1.1', 'not-a-token')).status, 429, 'a bad token is its address');
  assert.is((await from('10.2.2.2', null)).status, 200, 'another address is not held back');
});

test.run();
