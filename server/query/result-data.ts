// A function's result with its `data` member (a page's rows, a record read or written) kept as the bytes PostgreSQL sent:
// the members around it are parsed, the data's text goes into the response as it came, never parsed or written again.
import { adoptExact, parseResult } from '../codec/json.ts';
import { DATA_BYTES } from '../../compiler/query/paging.ts';

/** A result's `data` as SQL wrote it: JSON with wire names and every digit, as UTF-8 bytes. */
export class DataBytes {
  constructor(readonly bytes: Buffer) {}

  get text(): string { return this.bytes.toString('utf8'); }

  /** `result.data` becomes the parsed value, for work that changes it (signed links); exact numbers stay exact. */
  parseInto(result: { data: unknown }): void {
    result.data = parseResult(this.text);
    adoptExact(result.data, result);
  }
}

/**
 * Parses a function's result, keeping its `data` member as DataBytes when that is an object or an array: only
 * the other members are parsed (a page's header, a record's ETag). A result without such a member is parsed whole.
 */
export function parseWithData(bytes: Buffer | null): unknown {
  const at = bytes === null ? undefined : dataAt(bytes);
  if (!at) return parseResult(bytes === null ? null : bytes.toString('utf8'));
  const head = parseResult(bytes!.toString('utf8', 0, at.from) + bytes!.toString('utf8', at.to)) as Record<string, unknown>;
  head.data = new DataBytes(bytes!.subarray(at.value, at.end));
  return head;
}

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, COLON = 58, OPEN_OBJECT = 123, CLOSE_OBJECT = 125, OPEN_ARRAY = 91, CLOSE_ARRAY = 93;

/**
 * Where the top-level member `data` is, when its value is an object or an array: `value`…`end`, its value's
 * bytes, and `from`…`to`, what to cut for the object without it (the member and the comma that joins it).
 * Reads member by member: values before it are stepped over, not parsed; its own end is where a DATA_BYTES member
 * before it says, when the bytes agree (else it is stepped over too).
 */
function dataAt(b: Buffer): { value: number; end: number; from: number; to: number } | undefined {
  let i = skipSpace(b, 0), comma = -1, length = -1;
  if (b[i] !== OPEN_OBJECT) return undefined;
  for (i = skipSpace(b, i + 1); b[i] === QUOTE;) {
    const keyAt = i, keyEnd = stringEnd(b, i);
    if (keyEnd < 0) return undefined;
    const key = b.toString('utf8', i + 1, keyEnd - 1);
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) return undefined;
    const value = skipSpace(b, i + 1);
    if (key === 'data') {
      if (b[value] !== OPEN_OBJECT && b[value] !== OPEN_ARRAY) return undefined;
      i = length > 0 && closes(b, value, value + length) ? value + length : valueEnd(b, value);
      const next = skipSpace(b, i);
      // After the member the object goes on (`,`: cut up to the next key) or ends (cut back to the comma before).
      if (b[next] === COMMA) return { value, end: i, from: keyAt, to: skipSpace(b, next + 1) };
      return b[next] === CLOSE_OBJECT ? { value, end: i, from: comma < 0 ? keyAt : comma, to: next } : undefined;
    }
    i = valueEnd(b, value);
    if (key === DATA_BYTES) length = Number(b.toString('latin1', value, i));
    i = skipSpace(b, i);
    if (b[i] !== COMMA) return undefined;
    comma = i;
    i = skipSpace(b, i + 1);
  }
  return undefined;
}

/** Whether the value opening at `value` may end just before `end`: its closing bracket there, then `,` or `}`. */
function closes(b: Buffer, value: number, end: number): boolean {
  if (!Number.isSafeInteger(end) || end > b.length) return false;
  const next = b[skipSpace(b, end)];
  return b[end - 1] === (b[value] === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY) && (next === COMMA || next === CLOSE_OBJECT);
}

const skipSpace = (b: Buffer, i: number) => {
  while (i < b.length && (b[i] === 32 || b[i] === 10 || b[i] === 9 || b[i] === 13)) i++;
  return i;
};

/** The index after the string that opens at `i` (escapes honoured), or -1: the closing quote found by indexOf. */
function stringEnd(b: Buffer, i: number): number {
  for (let q = b.indexOf(QUOTE, i + 1); q >= 0; q = b.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (b[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return -1;
}

/** The index after the value that starts at `i`: a string, an object or array (nesting counted), or a scalar. */
function valueEnd(b: Buffer, i: number): number {
  if (b[i] === QUOTE) return stringEnd(b, i);
  if (b[i] !== OPEN_OBJECT && b[i] !== OPEN_ARRAY) {
    while (i < b.length && b[i] !== COMMA && b[i] !== CLOSE_OBJECT) i++;
    return i;
  }
  let depth = 0;
  for (let j = i; j < b.length; j++) {
    const c = b[j];
    if (c === QUOTE) { // a string: stepped over to its closing quote
      j = stringEnd(b, j) - 1;
      if (j < 0) return b.length;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return j + 1;
  }
  return b.length;
}
