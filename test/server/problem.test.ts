// SQLSTATE → problem without a server: the status table, PTnnn refusals with their DETAIL JSON, the
// constraint-named 409/422s, the 401/403 split, and 500s that show nothing of PostgreSQL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { compileModel } from '../../compiler/index.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import { problemFromDatabase, type ErrorContext } from '../../server/problem/database.ts';
import { problemBody } from '../../server/problem/render.ts';
import { statusFor } from '../../server/problem/sqlstate.ts';
import { publishingModel } from './setup.ts';

const manifest = buildManifest(compileModel(JSON.parse(readFileSync(publishingModel, 'utf8'))).model);
const ctx: ErrorContext = { manifest, anonymous: false, ownTables: ['posts'] };
const body = (err: object, c: Partial<ErrorContext> = {}) =>
  problemBody(problemFromDatabase(err, { ...ctx, ...c }), { docsUrl: 'https://docs.example.com/', instance: '/api/publishing/v1/posts' });

test('the status table: exact codes, then classes, then 500', () => {
  const cases: Array<[string, boolean, number]> = [
    ['PT400', false, 400], ['PT404', false, 404], ['PT409', false, 409], ['PT412', false, 412], ['PT422', false, 422],
    ['23505', false, 409], ['23514', false, 422], ['23502', false, 422], ['23503', false, 422], ['23001', false, 409],
    ['42501', true, 401], ['42501', false, 403], ['22P02', false, 400], ['22007', false, 400], ['54000', false, 413],
    ['08006', false, 503], ['42P01', false, 500], ['XX000', false, 500], ['PT999', false, 500],
  ];
  for (const [code, anon, status] of cases) assert.is(statusFor(code, anon), status, code);
});

test('PTnnn keeps its client-facing message; PT422 DETAIL becomes the errors list', () => {
  const p = body({ code: 'PT422', message: 'status must start in draft', detail: '{"property":"status","rule":"initialStatuses"}' });
  assert.equal(p, {
    type: 'https://docs.example.com/errors/validation-error', title: 'Validation Error', status: 422, code: 'E_VALIDATION_ERROR',
    detail: 'status must start in draft', instance: '/api/publishing/v1/posts',
    errors: [{ property: 'status', rule: 'initialStatuses', message: 'status must start in draft' }],
  });
  const many = body({ code: 'PT422', message: 'bad', detail: '{"errors":[{"property":"a","rule":"x","message":"a is x"},{"nope":1}]}' });
  assert.equal(many.errors, [{ property: 'a', rule: 'x', message: 'a is x' }]);
  const file = body({ code: 'PT422', message: 'too big', detail: '{"property":"cover","rule":"maxSizeInBytes","code":"E_FILE_TOO_LARGE"}' });
  assert.equal([file.code, file.type], ['E_FILE_TOO_LARGE', 'https://docs.example.com/errors/file-too-large']);
  const conflict = body({ code: 'PT409', message: 'The record was modified by another user.' });
  assert.equal([conflict.status, conflict.code, conflict.type, conflict.title], [409, 'E_CONCURRENCY_CONFLICT', 'https://docs.example.com/errors/conflict', 'Conflict']);
  const pre = body({ code: 'PT412', message: 'ETag "1" is not the current "2"', hint: 'Fetch the record again.' });
  assert.equal([pre.status, pre.code, pre.hint], [412, 'E_PRECONDITION_FAILED', 'Fetch the record again.']);
  assert.is(body({ code: 'PT400', message: 'x', detail: 'not json' }).status, 400);
});

test('constraint violations name the property through the manifest', () => {
  const unique = body({ code: '23505', constraint_name: 'users_email_key', table_name: 'users', message: 'duplicate key value violates…' });
  assert.equal([unique.status, unique.code], [409, 'E_UNIQUE_VIOLATION']);
  assert.match(String(unique.detail), '"email"');
  const check = body({ code: '23514', constraint_name: 'posts_rating_maximum', table_name: 'posts' });
  assert.equal(check.errors, [{ property: 'rating', rule: 'maximum', message: 'rating is above its maximum' }]);
  const nn = body({ code: '23502', column_name: 'title', table_name: 'posts' });
  assert.equal(nn.errors, [{ property: 'title', rule: 'required', message: 'title is required' }]);
  const fkOwn = body({ code: '23503', constraint_name: 'posts_project_id_fkey', table_name: 'posts' });
  assert.equal([fkOwn.status, fkOwn.errors], [422, [{ property: 'project_id', rule: 'references', message: 'project_id refers to a record that does not exist' }]]);
  const fkOther = body({ code: '23503', constraint_name: 'posts_project_id_fkey', table_name: 'posts' }, { ownTables: ['projects'] });
  assert.equal([fkOther.status, fkOther.code], [409, 'E_REFERENCED']);
  const restrict = body({ code: '23001', constraint_name: 'posts_project_id_fkey', table_name: 'posts' }, { ownTables: ['projects'] });
  assert.equal([restrict.status, restrict.code], [409, 'E_REFERENCED']);
  const selfDelete = body({ code: '23503', constraint_name: 'posts_project_id_fkey', table_name: 'posts' }, { deleting: true });
  assert.is(selfDelete.status, 409);
});

test('42501 is 401 for anonymous callers and 403 otherwise; raw messages never leak', () => {
  const raw = { code: '42501', message: 'permission denied for table posts' };
  assert.equal([body(raw, { anonymous: true }).status, body(raw).status], [401, 403]);
  const p401 = problemFromDatabase(raw, { ...ctx, anonymous: true });
  assert.is(p401.extra.headers?.['WWW-Authenticate'], 'Bearer');
  for (const err of [raw, { code: '22P02', message: 'invalid input syntax for type integer: "secret"' },
    { code: 'XX000', message: 'internal: relation app.secret' }, new Error('socket hang up at 10.0.0.5')]) {
    const text = JSON.stringify(body(err));
    assert.not.match(text, 'secret');
    assert.not.match(text, 'permission denied');
    assert.not.match(text, '10.0.0.5');
  }
  assert.equal([body({ code: 'XX000' }).status, body({ code: 'XX000' }).code], [500, 'E_INTERNAL']);
  assert.is(body({ code: 'ECONNREFUSED' }).status, 503);
});

test.run();
