// HTTP-date (RFC 9110 5.6.7), read strictly: IMF-fixdate, or the obsolete RFC 850 and asctime forms a recipient
// must still accept; anything else (V8's Date.parse reads "0", "1" or "Version 2" as dates) is no date at all.

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d\\d):(\\d\\d):(\\d\\d)';
/** Sun, 06 Nov 1994 08:49:37 GMT */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** Sunday, 06-Nov-94 08:49:37 GMT */
const RFC850 = new RegExp(`^${DAY_LONG}, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT$`);
/** Sun Nov  6 08:49:37 1994 */
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * The instant an HTTP-date names, or undefined when the text is not one (a recipient then ignores the field,
 * RFC 9110 13.1.3, 13.1.4). HTTP-date is case sensitive; the day name is not checked against the date.
 * An RFC 850 two-digit year more than 50 years ahead of `now` is the most recent past year ending so (5.6.7).
 */
export function parseHttpDate(text: string, now = Date.now()): Date | undefined {
  const fields = dateFields(text, now);
  if (!fields) return undefined;
  const [day, month, year, h, min, s] = fields;
  // Built field by field: Date.UTC would read the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(h, min, s, 0);
  // The fields must name a real instant: no 31 Feb, no hour 24, no leap second (Date keeps none).
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month || h > 23 || min > 59 || s > 59) return undefined;
  return date;
}

/** [day, month (0-11), year, hour, minute, second] of the three forms. */
function dateFields(text: string, now: number): [number, number, number, number, number, number] | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return [Number(m[1]), MONTHS.indexOf(m[2]!), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])];
  if ((m = RFC850.exec(text))) {
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return [Number(m[1]), MONTHS.indexOf(m[2]!), year, Number(m[4]), Number(m[5]), Number(m[6])];
  }
  if ((m = ASCTIME.exec(text))) return [Number(m[2]), MONTHS.indexOf(m[1]!), Number(m[6]), Number(m[3]), Number(m[4]), Number(m[5])];
  return undefined;
}
