// Results keep every digit: a number a double cannot hold comes back as it was written, whatever the
// quick check that lets most results go through the native parser decided.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isSafeNumber } from 'lossless-json';
import { parseResult, responseText } from '../../server/query/json.ts';

const roundTrip = (text: string) => { const v = parseResult(text); return responseText(v, v); };

test('numbers a double cannot hold come back exactly as written', () => {
  for (const n of ['9007199254740993', '-12345678901234567', '1e400', '1e-400', '1e20', '123456789.123456789',
    '0.1000000000000000055511151231257827', '9007199254740992.0', '12345678901234.567']) {
    assert.is(roundTrip(`{"a":[1,${n}],"id":"2e5"}`), `{"a":[1,${n}],"id":"2e5"}`, n);
  }
});

test('the quick check never lets an unsafe number through: 20,000 random numbers agree with lossless-json', () => {
  let seed = 7;
  const rand = (k: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % k; };
  const digits = (k: number) => Array.from({ length: k }, (_, i) => String(i === 0 ? 1 + rand(9) : rand(10))).join('');
  for (let i = 0; i < 20_000; i++) {
    let n = (rand(2) ? '-' : '') + (rand(5) === 0 ? '0' : digits(1 + rand(19)));
    if (rand(2)) n += `.${digits(1 + rand(19))}`;
    if (rand(6) === 0) n += `e${rand(2) ? '-' : ''}${rand(400)}`;
    const text = rand(2) ? `{"uuid":"9b2e1234-5e67","n":${n},"t":"2026-11-22T23:51:48.123456+00:00"}` : `[${n}, {"a": [${n}]}]`;
    const expected = isSafeNumber(n, { approx: false }) ? JSON.stringify(JSON.parse(text)) : text.replace(/ /g, '');
    assert.is(roundTrip(text), expected, n);
  }
});

test.run();
