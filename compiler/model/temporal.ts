// Which Date and DateTime values PostgreSQL gives back as it took them: the compiler (defaults, bounds) and the
// gateway (bodies, filters) refuse the others, which it would store and then print as no RFC 3339 value at all.

/**
 * The instants a DateTime holds. PostgreSQL converts a timestamptz to UTC and rounds it to microseconds; past these
 * it prints `10000-01-01T00:59:59+00:00` or `0001-12-31T23:00:00+00:00 BC`, which no client reads back.
 */
export const DATE_TIME_RANGE = { min: '0001-01-01T00:00:00Z', max: '9999-12-31T23:59:59.999999Z' } as const;

/** The largest offset PostgreSQL takes in a timestamp (±15:59): a larger one is refused as out of range. */
const MAX_OFFSET_HOURS = 15;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** Days from 1970-01-01 to a day of the proleptic Gregorian calendar (Date.UTC would read years 0-99 as 1900-1999). */
function dayNumber(year: number, month: number, day: number): number {
  const t = new Date(0);
  t.setUTCFullYear(year, month - 1, day);
  return t.getTime() / 86_400_000;
}

const FIRST_SECOND = dayNumber(1, 1, 1) * 86_400;
const END_SECOND = dayNumber(10000, 1, 1) * 86_400;

/** C's rint, as PostgreSQL rounds a fraction of a second to microseconds: to the nearest, a half to even. */
function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * Whether PostgreSQL stores the ISO 8601 date-time `text` within DATE_TIME_RANGE: its offset one it takes, and its
 * instant, in UTC and rounded to microseconds, inside the range (a text without an offset is judged as UTC). False
 * for a text that is no date-time; whether the day exists (no February 30) is the format's own check.
 */
export function dateTimeHeld(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m) return false;
  const [, year, month, day, hour, minute, second = '0', fraction, sign, offsetHours = '0', offsetMinutes = '0'] = m;
  if (Number(offsetHours) > MAX_OFFSET_HOURS) return false;
  const carry = fraction && rint(Number(`0.${fraction}`) * 1e6) === 1e6 ? 1 : 0;
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60);
  const at = dayNumber(Number(year), Number(month), Number(day)) * 86_400
    + Number(hour) * 3600 + Number(minute) * 60 + Number(second) + carry - offset;
  return at >= FIRST_SECOND && at < END_SECOND;
}

/** Whether PostgreSQL takes the ISO 8601 date `text` (YYYY-MM-DD): it has no year 0. */
export const dateHeld = (text: string): boolean => /^\d{4}-/.test(text) && Number(text.slice(0, 4)) >= 1;

/** What a refused DateTime must be, for messages. */
export const DATE_TIME_RULE = `an RFC 3339 date-time from ${DATE_TIME_RANGE.min} to ${DATE_TIME_RANGE.max} once in UTC`;
