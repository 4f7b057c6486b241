// A batch's answers (server/batch/answers.ts): counted as each comes, 413 naming the operation that passes
// MAX_BATCH_RESPONSE_BYTES before it is kept, written into the answer as they came, parsed only when referred to.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Answers } from '../../server/batch/answers.ts';
import { ApiError } from '../../server/problem/types.ts';
import { isLosslessNumber, responseText } from '../../server/codec/json.ts';

const body = (n: number) => `{"data": {"id": ${n}, "big": 9007199254740993, "text": "${'x'.repeat(100)}"}}`;

test('each answer is counted as it comes: the one past the limit is 413 naming it, and is not kept', () => {
  const answers = new Answers(2.5 * body(1).length);
  answers.add(1, { status: 200, headers: {}, text: body(1) });
  answers.add(2, { status: 204, headers: {}, text: '' });
  answers.add(3, { status: 200, headers: { ETag: '"3"' }, text: body(3) });
  const refused = (() => {
    try {
      answers.add(4, { status: 200, headers: {}, text: body(4) });
      return undefined;
    } catch (err) {
      return err;
    }
  })();
  assert.instance(refused, ApiError);
  assert.is((refused as ApiError).status, 413);
  assert.match((refused as ApiError).message, `at operation 4 (MAX_BATCH_RESPONSE_BYTES)`);
  assert.is(answers.bytes, 2 * body(1).length, 'the bodies kept, and no more');
  assert.is(answers.parsed, 0, 'none parsed: none was referred to');
});

test('the answer holds each body as written (exact numbers too); a body is parsed when referred to, once', () => {
  const answers = new Answers(1_000_000);
  answers.add(1, { status: 201, headers: { Location: '/x/1' }, text: body(1) });
  answers.add(2, { status: 204, headers: {}, text: '' });
  const text = responseText(answers.answer());
  assert.is(text, `{"results":[{"status":201,"headers":{"Location":"/x/1"},"body":${body(1)}},{"status":204,"headers":{},"body":null}]}`);
  assert.is(answers.body(2), undefined);
  const first = answers.body(1) as { data: { big: unknown } };
  assert.ok(isLosslessNumber(first.data.big));
  assert.is(answers.body(1), first, 'parsed once');
  assert.is(answers.parsed, 1);
});

test.run();
