// A manyToMany whose two key columns would have one name: `FooBar.id` and `Foo.bar_id` are both `foo_bar_id`
// (snake_case of the entity, then its key). The target's column is `related_…` then, as for a relation to the
// same entity; before, the join table had one column twice and the model failed to install.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testApi } from '../harness/fixtures.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi({
    api: testApi('join-columns'),
    entities: {
      FooBar: {
        collection: 'foo-bars', properties: { id: { type: 'String', primary: true } },
        relations: { foos: { kind: 'manyToMany', entity: 'Foo' } },
      },
      Foo: { collection: 'foos', properties: { bar_id: { type: 'String', primary: true } } },
    },
  });
});
test.after(async () => api?.close());

test('both keys get a column of their own; link, list and unlink work', async () => {
  expectStatus(await api.post('/foo-bars', { id: 'fb1' }), 201);
  expectStatus(await api.post('/foos', { bar_id: 'f1' }), 201);
  const link = dataOf(await api.put('/foo-bars/fb1/foos/f1'), 201);
  assert.equal(link, { foo_bar_id: 'fb1', related_foo_bar_id: 'f1' });
  assert.equal(dataOf(await api.get('/foo-bars/fb1/foos')).map((f: { bar_id: string }) => f.bar_id), ['f1']);
  expectStatus(await api.del('/foo-bars/fb1/foos/f1'), 204);
  assert.equal(api.serverErrors, []);
});

test.run();
