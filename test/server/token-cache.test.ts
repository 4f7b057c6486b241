// The verified-token cache: a token's signature is checked once while it is cached, an expired token is
// checked again (and so refused), and the cache holds at most CACHE_ENTRIES tokens.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CACHE_ENTRIES, CACHE_SECONDS, cachedVerifier } from '../../server/request/token-cache.ts';

function counting(payloadOf: (token: string) => Record<string, unknown>) {
  const calls: string[] = [];
  return { calls, verify: async (token: string) => { calls.push(token); return payloadOf(token); } };
}

test('a cached token skips the signature check until its exp or the cache lifetime, whichever is first', async () => {
  let now = 1_000_000_000_000;
  const exp = now / 1000 + 60;
  const v = counting(() => ({ sub: 'u1', exp }));
  const verify = cachedVerifier(v.verify, () => now);
  await verify('a'); await verify('a'); await verify('a');
  assert.is(v.calls.length, 1);
  now += 61_000; // past exp: verified again (the real verifier then refuses it)
  await verify('a');
  assert.is(v.calls.length, 2);
  const long = counting(() => ({ sub: 'u1' }));
  const verifyLong = cachedVerifier(long.verify, () => now);
  await verifyLong('b');
  now += CACHE_SECONDS * 1000 + 1;
  await verifyLong('b');
  assert.is(long.calls.length, 2, 'a token without exp is kept for the cache lifetime only');
});

test('a refused token is never cached, a token not yet valid (nbf) is not cached, and the size is bounded', async () => {
  let fail = true;
  const v = counting(() => { if (fail) throw new Error('bad signature'); return { sub: 'u1', nbf: 4_000_000_000 }; });
  const verify = cachedVerifier(v.verify, () => 1_000_000_000_000);
  await verify('x').then(() => assert.unreachable(), () => {});
  fail = false;
  await verify('x'); await verify('x');
  assert.is(v.calls.length, 3, 'nbf in the future: checked each time');
  const many = counting(() => ({ sub: 'u' }));
  const bounded = cachedVerifier(many.verify, () => 1_000_000_000_000);
  for (let i = 0; i <= CACHE_ENTRIES; i++) await bounded(`t${i}`);
  await bounded('t0');
  assert.is(many.calls.length, CACHE_ENTRIES + 2, 'the oldest entry made room for the newest');
});

test.run();
