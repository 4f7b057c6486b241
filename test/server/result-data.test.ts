// A list's rows and a record read or written travel as the bytes SQL wrote: only the members around `data` are parsed, the
// data is sent on as it is (taken by its byte length when the result gives it), and a result without an object
// or array `data` is parsed whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLosslessNumber, responseText } from '../../server/codec/json.ts';
import { DataBytes, parseWithData } from '../../server/query/result-data.ts';
import { DATA_BYTES } from '../../compiler/query/paging.ts';
import { callOf, type Plan } from '../../server/plan/plan.ts';
import { respond } from '../../server/response/respond.ts';
import { ANONYMOUS } from '../../server/request/auth.ts';

/** Parses a result given as text, as its bytes. */
const parse = (text: string) => parseWithData(Buffer.from(text));

const ROWS = '[{"id" : "p1", "rating" : 4.50, "big" : 9007199254740993}, \n {"id" : "p2", "note" : "a \\"data\\" : [1]}"}]';

test('the members before data are parsed; the rows stay text, exactly as written', () => {
  const r = parse(`{"meta" : {"total": 2, "count": "exact", "per_page": 25, "page": 1}, "scenario" : "editor", "data" : ${ROWS}}`) as Record<string, unknown>;
  assert.equal(r.meta, { total: 2, count: 'exact', per_page: 25, page: 1 });
  assert.is(r.scenario, 'editor');
  assert.instance(r.data, DataBytes);
  assert.is((r.data as DataBytes).text, ROWS);
});

test('rows parsed for work on them (signed links) keep every digit when written again', () => {
  const r = parse(`{"meta" : {"total": 2}, "data" : ${ROWS}}`) as { data: unknown; meta: unknown };
  (r.data as DataBytes).parseInto(r);
  const rows = r.data as Array<Record<string, unknown>>;
  assert.equal(rows.map((x) => x.id), ['p1', 'p2']);
  assert.is(responseText({ data: rows, meta: r.meta }, r), '{"data":[{"id":"p1","rating":4.5,"big":9007199254740993},{"id":"p2","note":"a \\"data\\" : [1]}"}],"meta":{"total":2}}');
});

test('strings before the rows may hold quotes, brackets and the word data', () => {
  const r = parse('{"meta" : {"next": "x\\"data\\" : [", "n": [1, {"a": "]}"}]}, "scenario" : "data\\\\", "data" : []}') as Record<string, unknown>;
  assert.equal(r.meta, { next: 'x"data" : [', n: [1, { a: ']}' }] });
  assert.is(r.scenario, 'data\\');
  assert.is((r.data as DataBytes).text, '[]');
});

test('a number a double cannot hold before the rows stays exact', () => {
  const r = parse('{"meta" : {"total": 12345678901234567}, "data" : [{"id" : 1}]}') as { meta: { total: unknown } };
  assert.ok(isLosslessNumber(r.meta.total));
  assert.is(String(r.meta.total), '12345678901234567');
});

test('a record read (jsonb: data second, the ETag and stamps after it) keeps its data as text, the rest parsed', () => {
  const DATA = '{"id": "p1", "meta": {"etag": "x", "n": [1, {"a": "}]\\\\"}]}, "rating": 4.50, "note": "a \\"data\\": {"}';
  const r = parse(`{"id": "p1", "data": ${DATA}, "etag": "3", "scenario": "Editors", "last_modified": "2026-01-02T10:11:12.5+00:00"}`) as Record<string, unknown>;
  assert.is((r.data as DataBytes).text, DATA);
  assert.equal(JSON.parse((r.data as DataBytes).text).meta.n[1].a, '}]\\');
  assert.equal({ ...r, data: undefined }, { id: 'p1', data: undefined, etag: '3', scenario: 'Editors', last_modified: '2026-01-02T10:11:12.5+00:00' });
});

test('data first, last or alone is cut out whole, with the comma that joined it', () => {
  const first = parse('{"data" : [{"id" : "p1"}], "meta" : {"total": 1}, "scenario" : "editor"}') as Record<string, unknown>;
  assert.is((first.data as DataBytes).text, '[{"id" : "p1"}]');
  assert.equal({ ...first, data: 0 }, { data: 0, meta: { total: 1 }, scenario: 'editor' });
  const alone = parse('{ "data" : {"id" : 1} }') as Record<string, unknown>;
  assert.is((alone.data as DataBytes).text, '{"id" : 1}');
  assert.equal(Object.keys(alone), ['data']);
});

test('the rows are taken by the byte length the result gives before them, multi-byte characters counted as bytes', () => {
  const rows = '[{"title" : "Grüße ☃ 𝄞"}, {"title" : "]}, \\"x\\""}]';
  const r = parse(`{"meta" : {"total": 2}, "scenario" : "editor", "${DATA_BYTES}" : ${Buffer.byteLength(rows)}, "data" : ${rows}}`) as Record<string, unknown>;
  assert.is((r.data as DataBytes).text, rows);
  assert.equal(r.meta, { total: 2 });
  // Bytes a scan would end earlier (an array closed, then more) are taken whole when the length says so:
  // the length is what is read, not the brackets.
  const said = parse(`{"${DATA_BYTES}" : 5, "data" : [1]]]}`) as Record<string, unknown>;
  assert.is((said.data as DataBytes).text, '[1]]]');
});

test('a byte length the bytes do not agree with is not used: the rows are stepped over to their end', () => {
  for (const wrong of [3, 9, 10_000, -1, 'x']) {
    const r = parse(`{"meta" : {"total": 1}, "${DATA_BYTES}" : ${JSON.stringify(wrong)}, "data" : [{"id" : 1}]}`) as Record<string, unknown>;
    assert.is((r.data as DataBytes).text, '[{"id" : 1}]', String(wrong));
  }
});

test('a result without an object or array data is parsed whole', () => {
  assert.equal(parse('{"data" : null, "scenario" : "x"}'), { data: null, scenario: 'x' });
  assert.equal(parse('{"data" : "text"}'), { data: 'text' });
  assert.equal(parse('{"id" : "x"}'), { id: 'x' });
  assert.equal(parse('[1, 2]'), [1, 2]);
  assert.is(parseWithData(null), null);
});

const readPlan = (projection: Plan['projection']) => ({ endpoint: { action: 'read', resource: { collection: 'posts' } }, projection, fn: 'posts_read', args: {} }) as unknown as Plan;

test("a read's record is asked for as text unless a projection picks from it, and answered as it came", async () => {
  assert.is(callOf(readPlan({}), ANONYMOUS, null).dataAsSent, true);
  assert.is(callOf(readPlan({ embed: ['project'] }), ANONYMOUS, null).dataAsSent, true);
  assert.is(callOf(readPlan({ include: ['title'] }), ANONYMOUS, null).dataAsSent, undefined);
  assert.is(callOf(readPlan({ exclude: ['body'] }), ANONYMOUS, null).dataAsSent, undefined);
  const result = parse('{"id": "p1", "data": {"id": "p1", "rating": 4.50, "big": 9007199254740993}, "etag": "3", "last_modified": "2026-01-02T10:11:12.5+00:00"}');
  const res = respond(readPlan({}), result, {}, '/api');
  assert.is(await res.text(), '{"data":{"id": "p1", "rating": 4.50, "big": 9007199254740993}}');
  assert.is(res.headers.get('ETag'), '"3"');
  assert.is(res.headers.get('Last-Modified'), 'Fri, 02 Jan 2026 10:11:12 GMT');
});

const writePlan = (action: string, extra: Partial<Plan> = {}) =>
  ({ endpoint: { action, resource: { collection: 'posts' } }, projection: {}, fn: `posts_${action}`, args: {}, ...extra }) as unknown as Plan;

test("a written record is answered as SQL wrote it, unless a merged document is checked in it, it is kept, or it is one of many", async () => {
  for (const action of ['create', 'replace', 'patch', 'restore', 'subReplace']) assert.is(callOf(writePlan(action), ANONYMOUS, null).dataAsSent, true, action);
  assert.is(callOf(writePlan('patch', { merged: {} as Plan['merged'] }), ANONYMOUS, null).dataAsSent, undefined);
  assert.is(callOf(writePlan('patch'), ANONYMOUS, null, true).dataAsSent, undefined, 'an answer kept for an Idempotency-Key');
  assert.is(callOf(writePlan('create', { each: [{}] }), ANONYMOUS, null).dataAsSent, undefined);
  assert.is(callOf(writePlan('patch', { projection: { include: ['title'] } }), ANONYMOUS, null).dataAsSent, undefined);
  assert.is(callOf(writePlan('delete'), ANONYMOUS, null).dataAsSent, undefined);
  const created = respond(writePlan('create'), parse('{"id": "p 1", "data": {"id": "p 1", "rating": 4.50}, "etag": "1"}'), {}, '/api');
  assert.is(created.status, 201);
  assert.is(await created.text(), '{"data":{"id": "p 1", "rating": 4.50}}');
  assert.is(created.headers.get('Location'), '/api/posts/p%201');
  assert.is(created.headers.get('ETag'), '"1"');
  const patched = respond(writePlan('patch'), parse('{"id": "p1", "data": {"id": "p1", "big": 9007199254740993}, "etag": "2"}'), {}, '/api');
  assert.is(await patched.text(), '{"data":{"id": "p1", "big": 9007199254740993}}');
});

test('a page or record sent as it came declares its length in bytes: multi-byte rows, and a meta with multi-byte text', async () => {
  const rows = '[{"title" : "Grüße ☃ 𝄞"}]';
  const listPlan = { endpoint: { action: 'list', resource: { collection: 'posts' } }, projection: {}, fn: 'posts_list', args: {} } as unknown as Plan;
  const page = respond(listPlan, parse(`{"meta" : {"next": "ü☃"}, "data" : ${rows}}`), {}, '/api');
  const pageBytes = Buffer.from(await page.arrayBuffer());
  assert.is(pageBytes.toString('utf8'), `{"data":${rows},"meta":{"next":"ü☃"}}`);
  assert.is(page.headers.get('Content-Length'), String(pageBytes.length));
  const read = respond(readPlan({}), parse(`{"id": "p1", "data": {"title": "𝄞"}, "etag": "1"}`), {}, '/api');
  const readBytes = Buffer.from(await read.arrayBuffer());
  assert.is(readBytes.toString('utf8'), '{"data":{"title": "𝄞"}}');
  assert.is(read.headers.get('Content-Length'), String(readBytes.length));
});

test.run();
