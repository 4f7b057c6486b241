// The verified-token cache: a token's signature is checked once while it is cached, an expired token is
// checked again (and so refused), and the cache holds at most CACHE_ENTRIES tokens; identify checks a payload's claims
// until they pass, then gives its requests one identity.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CACHE_ENTRIES, CACHE_SECONDS, cachedVerifier } from '../../server/request/token-cache.ts';
import { identify } from '../../server/request/auth.ts';

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


test('identify: a cached payload with unusable claims is refused on every request, a usable one gives the same identity', async () => {
  const bad = { exp: 4_000_000_000 }; // no sub
  const verifyBad = async () => bad;
  for (let i = 0; i < 2; i++) {
    await identify('Bearer a.b.c', verifyBad).then(() => assert.unreachable('a payload without sub was accepted'),
      (err: { status?: number }) => assert.is(err.status, 401));
  }
  const good = { sub: 'u1', roles: ['editor'], exp: 4_000_000_000 };
  const first = await identify('Bearer a.b.c', async () => good);
  const second = await identify('Bearer a.b.c', async () => good);
  assert.equal(first, { role: 'authenticated', claims: good });
  assert.ok(first === second, 'one identity per verified payload');
  const other = await identify('Bearer a.b.c', async () => ({ ...good, sub: 'u2' }));
  assert.is(other.claims.sub, 'u2', 'another payload, its own identity');
});

test.run();
