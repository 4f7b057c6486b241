// Numbers keep every digit between HTTP and PostgreSQL: `numeric` columns hold more than a JS double,
// so bodies and results travel as JSON text, with lossless-json keeping the numbers a double would round.
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/** Plain parsed bodies -> their twin with exact numbers, registered only when a number needs it. */
const precise = new WeakMap<object, unknown>();

/** A number a double represents exactly stays a number; any other becomes a LosslessNumber. */
const parseNumber = (text: string): number | LosslessNumber =>
  isSafeNumber(text, { approx: false }) ? Number(text) : new LosslessNumber(text);

/**
 * Parses a body's text again with lossless-json, which refuses a member named twice (SyntaxError
 * "Duplicate key …"), and remembers the exact twin of `value` (and of each object and array in it) when a
 * number needs one. No reviver: one called for every value made the parse twice as slow. `unique`: the caller
 * knows no member is named twice; then text whose every number is a safe double is not parsed again at all.
 */
export function exactTwin(value: object, text: string, unique = false): void {
  // With every number a safe double (one fast pass says so), the parse only has to find a duplicate member.
  if (allSafe(text)) {
    if (!unique) parse(text, null, NO_NUMBER);
    return;
  }
  let needed = false;
  const twin = parse(text, null, (s) => {
    const n = parseNumber(s);
    if (isLosslessNumber(n)) needed = true;
    return n;
  });
  if (needed) pairTwins(value, twin);
}

const NO_NUMBER = () => 0;

/** Registers the twin of `value` and of every object and array inside it, so any part is sent exactly. */
function pairTwins(value: unknown, twin: unknown): void {
  if (!value || typeof value !== 'object' || !twin || typeof twin !== 'object') return;
  precise.set(value, twin);
  for (const [k, v] of Object.entries(value)) pairTwins(v, (twin as Record<string, unknown>)[k]);
}

/** The exact twin of a parsed body (or of an object or array in it), when one of its numbers needed one. */
export const exactOf = (value: object): unknown => precise.get(value);

/** Sets a body's property on the body and on its exact twin, if it has one (the twin is what is sent). */
export function setBodyValue(body: Record<string, unknown>, key: string, value: unknown): void {
  body[key] = value;
  const twin = precise.get(body) as Record<string, unknown> | undefined;
  if (twin) twin[key] = value;
}

/** Renames `object`'s keys by `names` (from -> to), in place, and on its exact twin if it has one; returns it. */
export function renameKeys(object: Record<string, unknown>, names: Map<string, string>): Record<string, unknown> {
  const twin = precise.get(object) as Record<string, unknown> | undefined;
  for (const target of twin ? [object, twin] : [object]) {
    for (const [from, to] of names) {
      if (!Object.hasOwn(target, from)) continue;
      target[to] = target[from];
      delete target[from];
    }
  }
  return object;
}

/** JSON text of the arguments of a call, with bodies' numbers as they were sent. */
export function argsText(value: unknown): string {
  // Without an exact number anywhere in them (the usual case), the native serializer writes the same text.
  if (!holdsExact(value)) return JSON.stringify(value) ?? 'null';
  return stringify(value, (_key, v) => twinOrSelf(v)) ?? 'null';
}

/** Whether an object or array in `value` has an exact twin, or is itself an exact number (a stack, not recursion). */
function holdsExact(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (precise.has(v) || isLosslessNumber(v)) return true;
    for (const m of Array.isArray(v) ? v : Object.values(v)) stack.push(m);
  }
  return false;
}

/** A body's (or part's) exact twin when it has one, else the value itself. */
const twinOrSelf = (v: unknown): unknown => (v && typeof v === 'object' && precise.has(v) ? precise.get(v) : v);

/**
 * JSON text of a request's content for comparing it with another's (an Idempotency-Key's fingerprint): as
 * argsText, with every object's members in sorted order, which JSON does not give a meaning to.
 */
export function canonicalText(value: unknown): string {
  return stringify(value, (_key, v) => {
    const x = twinOrSelf(v);
    if (!x || typeof x !== 'object' || Array.isArray(x) || isLosslessNumber(x)) return x;
    return Object.fromEntries(Object.keys(x).sort().map((k) => [k, (x as Record<string, unknown>)[k]]));
  }) ?? 'null';
}

/** A deep copy of a parsed body whose numbers a double cannot hold are LosslessNumbers (responseText writes them back). */
export function exactCopy(value: unknown): unknown {
  return parse(argsText(value), null, parseNumber);
}

/**
 * Every run of digits that could be a JSON number, strings included: a superset of the text's numbers,
 * so when all of them are safe doubles the native parser loses nothing.
 */
const NUMBER_LIKE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/**
 * True when `text` holds no number a double may not keep. Such a number has 16 digits (so a run of 16
 * digits and points), or an exponent: an `e` right after a run of digits that starts a number (after a
 * space, `:`, `,`, `[`, `-`, or at the start). A number with neither has at most 15 significant digits,
 * which a double keeps (DBL_DIG). One pass over the characters, about as fast as JSON.parse; strings
 * that look like numbers only send the text to the slower exact check.
 */
function surelySafe(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || c === 46) {
      if (++run === 16) return false;
      continue;
    }
    if ((c === 101 || c === 69) && run > 0 && startsNumber(text.charCodeAt(i - run - 1))) return false;
    run = 0;
  }
  return true;
}
/** Space, tab, newline, `:`, `,`, `[`, `-`, or before the text (NaN). */
const startsNumber = (c: number) => Number.isNaN(c) || c === 32 || c === 9 || c === 10 || c === 13 || c === 58 || c === 44 || c === 91 || c === 45;
const allSafe = (text: string) =>
  surelySafe(text) || (text.match(NUMBER_LIKE) ?? []).every((n) => isSafeNumber(n, { approx: false }));

/** Parsed results that hold a LosslessNumber somewhere: only these need lossless-json to be written. */
const exact = new WeakSet<object>();

/** Parses a function's result: numbers a double cannot hold stay exact (LosslessNumber). */
export function parseResult(text: string | null): unknown {
  if (text === null) return null;
  if (allSafe(text)) return JSON.parse(text);
  const value = parse(text, null, parseNumber);
  if (value && typeof value === 'object') exact.add(value);
  return value;
}

/** A value parsed from part of a result marks the whole result when it holds an exact number (see responseText). */
export function adoptExact(part: unknown, result: object): void {
  if (part && typeof part === 'object' && exact.has(part)) exact.add(result);
}

/** Serializes a response body, writing exact numbers back as they came. */
export function responseText(value: unknown, source?: unknown): string {
  if (source !== undefined && !(source && typeof source === 'object' && exact.has(source))) return JSON.stringify(value) ?? 'null';
  return stringify(value) ?? 'null';
}

export { isLosslessNumber };
