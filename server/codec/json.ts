// Numbers keep every digit between HTTP and PostgreSQL: `numeric` columns hold more than a JS double,
// so bodies and results travel as JSON text, with lossless-json keeping the numbers a double would round.
import { isLosslessNumber, stringify } from 'lossless-json';
import { inexactNumbers, parseExact } from './exact-parse.ts';

/** Plain parsed bodies -> their twin with exact numbers, registered only when a number needs it. */
const precise = new WeakMap<object, unknown>();

/**
 * Remembers the exact twin of a body parsed from `text` (and of each object and array in it) when one of its numbers
 * needs one: the text is parsed again only then. The caller has refused a member named twice (server/request/body.ts).
 */
export function exactTwin(value: object, text: string): void {
  const inexact = inexactNumbers(text);
  if (inexact.length > 0) pairTwins(value, parseExact(text, inexact));
}

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

/** JSON text already written (a batch's answer, made of its operations' response bodies as they came): written as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** JSON text of the arguments of a call, with bodies' numbers as they were sent. */
export function argsText(value: unknown): string {
  if (value instanceof JsonText) return value.text;
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
  return parseExact(argsText(value));
}

/** Parsed results that hold a LosslessNumber somewhere: only these need lossless-json to be written. */
const exact = new WeakSet<object>();

/** Parses a function's result: numbers a double cannot hold stay exact (LosslessNumber). */
export function parseResult(text: string | null): unknown {
  if (text === null) return null;
  const inexact = inexactNumbers(text);
  const value = parseExact(text, inexact);
  if (inexact.length > 0 && value && typeof value === 'object') exact.add(value);
  return value;
}

/** A value parsed from part of a result marks the whole result when it holds an exact number (see responseText). */
export function adoptExact(part: unknown, result: object): void {
  if (part && typeof part === 'object' && exact.has(part)) exact.add(result);
}

/** Serializes a response body, writing exact numbers back as they came. */
export function responseText(value: unknown, source?: unknown): string {
  if (value instanceof JsonText) return value.text;
  if (source !== undefined && !(source && typeof source === 'object' && exact.has(source))) return JSON.stringify(value) ?? 'null';
  return stringify(value) ?? 'null';
}

export { isLosslessNumber };
