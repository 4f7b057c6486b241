// parseHttpDate (RFC 9110 5.6.7) without a server: the three forms, the texts V8's Date.parse reads as dates
// that are none, fields that name no instant, years below 100, and the RFC 850 two-digit year's century.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHttpDate } from '../../server/codec/date.ts';

const iso = (text: string, now?: number) => parseHttpDate(text, now)?.toISOString();

test('IMF-fixdate, RFC 850 and asctime name the same instant', () => {
  for (const text of ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994', 'Sun Nov 06 08:49:37 1994']) {
    assert.is(iso(text), '1994-11-06T08:49:37.000Z', text);
  }
});

test('what Date.parse reads leniently is no date: numbers, words, ISO 8601, other zones, another case, missing digits', () => {
  for (const text of ['', '0', '-1', '1', '12', 'Version 2', '3000', '2001-01-01T00:00:00Z', 'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 +0000', 'sun, 06 nov 1994 08:49:37 gmt', 'Sun, 6 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun,  06 Nov 1994 08:49:37 GMT', ' Sun, 06 Nov 1994 08:49:37 GMT', 'Sun Nov 6 08:49:37 1994', 'Sun, 06-Nov-94 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT']) {
    assert.is(parseHttpDate(text), undefined, JSON.stringify(text));
  }
});

test('fields must name an instant: no 31 February, no hour 24, no minute or second 60', () => {
  for (const text of ['Thu, 31 Feb 2001 00:00:00 GMT', 'Mon, 29 Feb 2001 00:00:00 GMT', 'Mon, 00 Jan 2001 00:00:00 GMT',
    'Mon, 01 Jan 2001 24:00:00 GMT', 'Mon, 01 Jan 2001 00:60:00 GMT', 'Mon, 01 Jan 2001 00:00:60 GMT']) {
    assert.is(parseHttpDate(text), undefined, text);
  }
  assert.is(iso('Tue, 29 Feb 2000 23:59:59 GMT'), '2000-02-29T23:59:59.000Z');
});

test('years below 100 are those years (Date.UTC would make them 1900-1999), year 0 included', () => {
  assert.is(iso('Mon, 01 Jan 0001 00:00:00 GMT'), '0001-01-01T00:00:00.000Z');
  assert.is(iso('Thu, 31 Dec 0099 23:59:59 GMT'), '0099-12-31T23:59:59.000Z');
  assert.is(iso('Sat, 01 Jan 0000 00:00:00 GMT'), '0000-01-01T00:00:00.000Z');
  assert.is(iso('Mon Jan  1 00:00:00 0001'), '0001-01-01T00:00:00.000Z');
});

test('an RFC 850 two-digit year is in this century unless that is more than 50 years ahead (RFC 9110 5.6.7)', () => {
  const now = Date.UTC(2026, 10, 24);
  assert.is(iso('Thursday, 01-Jan-76 00:00:00 GMT', now), '2076-01-01T00:00:00.000Z');
  assert.is(iso('Friday, 01-Jan-77 00:00:00 GMT', now), '1977-01-01T00:00:00.000Z');
  assert.is(iso('Monday, 01-Jan-26 00:00:00 GMT', now), '2026-01-01T00:00:00.000Z');
});

test.run();
