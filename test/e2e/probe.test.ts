// The schema-driven probe of the publishing example (test/e2e/support/probe.ts): no answer a 5xx, every error
// a problem document, every 2xx as documented. PROBE_REQUESTS (default 2000) and PROBE_SEED change the run.
import { test } from 'uvu';
import { dataOf, expectStatus } from './support/http.ts';
import { probe } from './support/probe.ts';

probe('examples/publishing.model.json', async (api) => {
  const project = dataOf(await api.post('/projects', { name: 'Probe' }), 201).id;
  const user = dataOf(await api.post('/users', { email: 'probe@example.com', password: 'pw-probe-1', display_name: 'Probe' }), 201).id;
  dataOf(await api.post('/posts', { id: 'p1', project_id: project, title: 'Probe', meta: { address: { city: 'Oslo' }, priority: 1 } }), 201);
  dataOf(await api.post('/tags', { slug: 'probe', label: 'Probe' }), 201);
  expectStatus(await api.put('/posts/p1/tags/probe'), 201);
  const comment = dataOf(await api.post('/posts/p1/comments', { body: 'Probe comment' }), 201).id;
  return {
    ids: { projects: [project], users: [user], posts: ['p1'], tags: ['probe'], comments: [String(comment)], members: [user] },
    tokens: [undefined, null, await api.token({ sub: 'u-author', roles: ['author'], email: 'a@example.org' }),
      await api.token({ sub: user, roles: [] }), 'not-a-token'],
  };
}, { minOperations: 60 });

test.run();
