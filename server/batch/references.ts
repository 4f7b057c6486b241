// References from one batch operation to the result of an earlier one: a string that is exactly
// `$<n>.<path>` (n from 1, the path through the earlier response body) stands for the value found there;
// `$$…` is a literal string starting with `$`. Used in body string values and in path segments and query values.
import { ApiError, badRequest } from '../problem/types.ts';
import { isLosslessNumber } from '../codec/json.ts';
import { LIMITS } from '../request/limits.ts';

const REFERENCE = /^\$(\d+)((?:\.[^.]+)*)$/;

/** The response body of operation n (from 1) of those run so far, parsed (undefined when it had none). */
export type Bodies = (n: number) => unknown;

/** What `text` stands for: itself, the unescaped literal, or the referenced value. */
function resolveString(text: string, bodies: Bodies, current: number): unknown {
  if (text.startsWith('$$')) return text.slice(1);
  const m = REFERENCE.exec(text);
  if (!m) return text;
  const n = Number(m[1]);
  if (!(n >= 1 && n < current)) {
    throw badRequest(`"${text}" refers to operation ${m[1]}, but only operations 1 to ${current - 1} have run before this one (write $$ for a literal $).`);
  }
  let value = bodies(n);
  if (value === undefined) throw badRequest(`"${text}" refers to operation ${n}, which answered without a body.`);
  for (const key of m[2] ? m[2].slice(1).split('.') : []) {
    const inside = Array.isArray(value) ? (/^\d+$/.test(key) ? value[Number(key)] : undefined)
      : value && typeof value === 'object' && !isLosslessNumber(value) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key]
      : undefined;
    if (inside === undefined) throw badRequest(`"${text}" names nothing in the response body of operation ${n}.`);
    value = inside;
  }
  return value;
}

/** Takes `bytes` of what is left of a budget; throws once more is taken than there was. */
type Spend = (bytes: number) => void;
/** JSON text bytes of an array's or object's brackets and commas, and of a member's name and colon. */
const punctuation = (members: number) => Math.max(members + 1, 2);
const nameBytes = (name: string) => Buffer.byteLength(JSON.stringify(name)) + 1;

/** Counts the bytes of `value`'s JSON text (as responseText writes it) without writing it. */
function measure(value: unknown, spend: Spend): void {
  if (typeof value === 'string') spend(Buffer.byteLength(JSON.stringify(value)));
  else if (Array.isArray(value)) {
    spend(punctuation(value.length));
    for (const v of value) measure(v, spend);
  } else if (value && typeof value === 'object' && !isLosslessNumber(value)) {
    const entries = Object.entries(value);
    spend(punctuation(entries.length));
    for (const [k, v] of entries) {
      spend(nameBytes(k));
      measure(v, spend);
    }
  } else spend(String(value).length); // a number, true, false or null: ASCII
}

/**
 * A copy of a JSON body with each reference in a string value replaced by what it names. The bytes of its
 * JSON text are counted as it is made, and past `maxBytes` (MAX_BODY_BYTES, as for a request of its own)
 * it is 413 at once: references repeating a large value would make a body many times larger than any request.
 */
export function resolveBody(body: unknown, bodies: Bodies, current: number, maxBytes: number): unknown {
  let left = maxBytes;
  const spend: Spend = (bytes) => {
    left -= bytes;
    if (left < 0) {
      throw new ApiError('payloadTooLarge', `With its references resolved, the body of this operation is larger than the limit of ${maxBytes} bytes (${LIMITS.maxBodyBytes.env}).`);
    }
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      spend(punctuation(value.length));
      return value.map(resolve);
    }
    if (value && typeof value === 'object' && !isLosslessNumber(value)) {
      const entries = Object.entries(value);
      spend(punctuation(entries.length));
      return Object.fromEntries(entries.map(([k, v]) => {
        spend(nameBytes(k));
        return [k, resolve(v)];
      }));
    }
    const resolved = typeof value === 'string' ? resolveString(value, bodies, current) : value;
    measure(resolved, spend); // a referenced object or array is shared, not copied: only counted
    return resolved;
  };
  return resolve(body);
}

/** A scalar referenced from a path must be text, a number or a boolean. */
function asText(raw: string, bodies: Bodies, current: number): string {
  const v = resolveString(raw, bodies, current);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || isLosslessNumber(v)) return String(v);
  throw badRequest(`"${raw}" names ${v === null ? 'null' : 'an object or array'}, which cannot stand in a path.`);
}

/**
 * The path with references in its segments and query values resolved (their values percent-encoded). Its
 * length is counted piece by piece, and past `maxLength` (MAX_HEADER_BYTES, which holds the request line of a
 * request of its own) it is 431 at once: references repeating a long text would make a path of gigabytes.
 */
export function resolvePath(path: string, bodies: Bodies, current: number, maxLength: number): string {
  let left = maxLength;
  const take = (piece: string) => { // its separators aside
    left -= piece.length;
    if (left < 0) {
      throw new ApiError('headersTooLarge', `With its references resolved, the path of this operation is longer than ${maxLength} characters (${LIMITS.maxHeaderBytes.env}), more than a request line may hold.`);
    }
    return piece;
  };
  const q = path.indexOf('?');
  const [route, query] = q < 0 ? [path, undefined] : [path.slice(0, q), path.slice(q + 1)];
  const decoded = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return undefined;
    }
  };
  const segment = (s: string) => {
    const d = decoded(s);
    return take(d !== undefined && d.startsWith('$') ? encodeURIComponent(asText(d, bodies, current)) : s);
  };
  const resolved = route.split('/').map(segment).join('/');
  if (query === undefined) return resolved;
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return take(pair);
    const d = decoded(pair.slice(eq + 1).replace(/\+/g, ' '));
    return take(d !== undefined && d.startsWith('$') ? `${pair.slice(0, eq)}=${encodeURIComponent(asText(d, bodies, current))}` : pair);
  });
  return `${resolved}?${pairs.join('&')}`;
}
