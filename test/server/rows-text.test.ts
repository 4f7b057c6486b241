// A list's rows travel as the text SQL wrote: only the members before `data` are parsed, the rows are sent
// on as they are, and a result in any other shape (an older compiled function's) is parsed whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLosslessNumber, parseWithRowsText, responseText, RowsText } from '../../server/query/json.ts';

const ROWS = '[{"id" : "p1", "rating" : 4.50, "big" : 9007199254740993}, \n {"id" : "p2", "note" : "a \\"data\\" : [1]}"}]';

test('the members before data are parsed; the rows stay text, exactly as written', () => {
  const r = parseWithRowsText(`{"meta" : {"total": 2, "count": "exact", "per_page": 25, "page": 1}, "scenario" : "editor", "data" : ${ROWS}}`) as Record<string, unknown>;
  assert.equal(r.meta, { total: 2, count: 'exact', per_page: 25, page: 1 });
  assert.is(r.scenario, 'editor');
  assert.instance(r.data, RowsText);
  assert.is((r.data as RowsText).text, ROWS);
});

test('rows parsed for work on them (signed links) keep every digit when written again', () => {
  const r = parseWithRowsText(`{"meta" : {"total": 2}, "data" : ${ROWS}}`) as { data: unknown; meta: unknown };
  (r.data as RowsText).parseInto(r);
  const rows = r.data as Array<Record<string, unknown>>;
  assert.equal(rows.map((x) => x.id), ['p1', 'p2']);
  assert.is(responseText({ data: rows, meta: r.meta }, r), '{"data":[{"id":"p1","rating":4.5,"big":9007199254740993},{"id":"p2","note":"a \\"data\\" : [1]}"}],"meta":{"total":2}}');
});

test('strings before the rows may hold quotes, brackets and the word data', () => {
  const r = parseWithRowsText('{"meta" : {"next": "x\\"data\\" : [", "n": [1, {"a": "]}"}]}, "scenario" : "data\\\\", "data" : []}') as Record<string, unknown>;
  assert.equal(r.meta, { next: 'x"data" : [', n: [1, { a: ']}' }] });
  assert.is(r.scenario, 'data\\');
  assert.is((r.data as RowsText).text, '[]');
});

test('a number a double cannot hold before the rows stays exact', () => {
  const r = parseWithRowsText('{"meta" : {"total": 12345678901234567}, "data" : [{"id" : 1}]}') as { meta: { total: unknown } };
  assert.ok(isLosslessNumber(r.meta.total));
  assert.is(String(r.meta.total), '12345678901234567');
});

test("a result in an older function's shape (rows first, the scenario last), or without rows, is parsed whole", () => {
  const older = parseWithRowsText('{"data" : [{"id" : "p1"}], "meta" : {"total": 1}, "scenario" : "editor"}') as Record<string, unknown>;
  assert.equal(older, { data: [{ id: 'p1' }], meta: { total: 1 }, scenario: 'editor' });
  assert.equal(parseWithRowsText('{"data" : [{"id" : "p1"}], "meta" : {"total": 1}, "scenario" : null}'), { data: [{ id: 'p1' }], meta: { total: 1 }, scenario: null });
  assert.equal(parseWithRowsText('{"data" : {"id" : 1}}'), { data: { id: 1 } });
  assert.equal(parseWithRowsText('{"id" : "x"}'), { id: 'x' });
  assert.is(parseWithRowsText(null), null);
});

test.run();
