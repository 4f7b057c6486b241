// Results keep every digit: a number a double cannot hold comes back as it was written, whatever the
// quick check that lets most results go through the native parser decided.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isSafeNumber } from 'lossless-json';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseResult, responseText } from '../../server/codec/json.ts';
import { inexactNumbers } from '../../server/codec/exact-parse.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

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

test('digits inside strings are text: only numbers outside strings are judged', () => {
  assert.equal(inexactNumbers('{"a":"12345678901234567890","b":"1e400","c\\"":"\\"9007199254740993"}'), []);
  const text = '{"a":"x","n":[1,9007199254740993,"2"]}';
  assert.equal(inexactNumbers(text), [text.indexOf('9007'), text.indexOf('9007') + 16]);
});

test('a result with exact numbers and long texts holds about its size: its strings are made whole, not a character at a time', () => {
  const rows = Array.from({ length: 20 }, (_, i) => `{"n":1234567890123456789${i % 10},"body":"${'0123456789'.repeat(5_000)}${i}"}`);
  const text = `{"data":[${rows.join(',')}]}`;
  gc();
  const before = process.memoryUsage().heapUsed;
  const value = parseResult(text) as { data: Array<{ body: string }> };
  gc();
  const held = process.memoryUsage().heapUsed - before;
  assert.ok(held < 3 * text.length, `${held} bytes held for ${text.length} bytes of text`);
  assert.is(responseText(value, value), text);
});

test.run();
