// The Idempotency-Key of a write (server/request/idempotency.ts): a request without the header is not
// fingerprinted at all, so its text (lossless-json, members sorted) is never written on the hot path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { idempotencyKey } from '../../server/request/idempotency.ts';
import { ANONYMOUS } from '../../server/request/auth.ts';

test('without an Idempotency-Key the request text is not even written', () => {
  const text = () => { throw new Error('written'); };
  assert.is(idempotencyKey(new Headers(), ANONYMOUS, '192.0.2.1', text, 60), undefined);
  assert.throws(() => idempotencyKey(new Headers({ 'idempotency-key': 'k1' }), ANONYMOUS, '192.0.2.1', text, 60), /written/);
});

test('with one, the fingerprint is of the text: the same text, the same fingerprint; another, another', () => {
  const headers = new Headers({ 'idempotency-key': '"k1"' });
  const a = idempotencyKey(headers, ANONYMOUS, '192.0.2.1', () => 'posts_patch\n{"a":1}', 60)!;
  assert.is(a.key, 'k1');
  assert.is(idempotencyKey(headers, ANONYMOUS, '192.0.2.1', () => 'posts_patch\n{"a":1}', 60)!.fingerprint, a.fingerprint);
  assert.is.not(idempotencyKey(headers, ANONYMOUS, '192.0.2.1', () => 'posts_patch\n{"a":2}', 60)!.fingerprint, a.fingerprint);
});

test.run();
