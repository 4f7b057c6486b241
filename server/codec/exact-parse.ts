// JSON text parsed by the native parser with every number a double cannot hold kept as a LosslessNumber: one scan finds
// those numbers (outside strings), and only when there are some is the text parsed again with each one written as a marked string.
import { randomBytes } from 'node:crypto';
import { isSafeNumber, LosslessNumber } from 'lossless-json';

const QUOTE = 34, BACKSLASH = 92, MINUS = 45, PLUS = 43, DOT = 46, ZERO = 48, NINE = 57, UPPER_E = 69, LOWER_E = 101;

/**
 * Where the numbers of JSON `text` that a double does not keep are: [start, end) offsets, one pair after another; none,
 * and JSON.parse loses nothing. Strings are stepped over whole (their digits are text), so one pass finds them. A number
 * of at most 15 digits without an exponent is kept by a double (DBL_DIG); only longer ones are judged by lossless-json.
 */
export function inexactNumbers(text: string): number[] {
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      continue;
    }
    if (c !== MINUS && (c < ZERO || c > NINE)) continue;
    const start = i;
    let digits = 0, exponent = false;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d >= ZERO && d <= NINE) digits++;
      else if (d === LOWER_E || d === UPPER_E) exponent = true;
      else if (d !== DOT && d !== MINUS && d !== PLUS) break;
    }
    if ((digits > 15 || exponent) && !isSafeNumber(text.slice(start, i), { approx: false })) at.push(start, i);
    i--; // the character after the number is looked at again
  }
  return at;
}

/** The index of the quote closing the string that opens at `open` (escapes honoured), or the text's end. */
export function closingQuote(text: string, open: number): number {
  for (let q = text.indexOf('"', open + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return text.length;
}

/**
 * Parses JSON text (valid JSON: JSON.parse accepted it, or a server wrote it) with the numbers at `inexact` (from
 * inexactNumbers) as LosslessNumbers and every other number a double. lossless-json's own parser builds each string a
 * character at a time, and V8 keeps such a string as a chain of pieces of about 32 bytes a character until it is read
 * whole: a page of long texts held thirty times its size. Here JSON.parse makes every string, flat.
 */
export function parseExact(text: string, inexact = inexactNumbers(text)): unknown {
  if (inexact.length === 0) return JSON.parse(text);
  // Each inexact number becomes a string marked by a NUL and a nonce no text sent before this parse could know.
  const mark = `\u0000${randomBytes(12).toString('base64url')}`;
  const pieces: string[] = [];
  let from = 0;
  for (let k = 0; k < inexact.length; k += 2) {
    pieces.push(text.slice(from, inexact[k]), `"\\u0000${mark.slice(1)}`, text.slice(inexact[k], inexact[k + 1]), '"');
    from = inexact[k + 1]!;
  }
  pieces.push(text.slice(from));
  return restore(JSON.parse(pieces.join('')), mark);
}

/** `value` with each marked string made the LosslessNumber it stands for, in place (a stack, not recursion). */
function restore(value: unknown, mark: string): unknown {
  const marked = (v: unknown): v is string => typeof v === 'string' && v.startsWith(mark);
  const exact = (v: string) => new LosslessNumber(v.slice(mark.length));
  if (marked(value)) return exact(value);
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    // An own "__proto__" member (JSON.parse makes one) is set as the member it is, not as the prototype.
    const container = v as Record<string, unknown>;
    for (const key of Array.isArray(v) ? v.keys() : Object.keys(v)) {
      const member = container[key];
      if (marked(member)) container[key] = exact(member);
      else if (member && typeof member === 'object') stack.push(member);
    }
  }
  return value;
}
