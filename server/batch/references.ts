// References from one batch operation to the result of an earlier one: a string that is exactly
// `$<n>.<path>` (n from 1, the path through the earlier response body) stands for the value found there;
// `$$…` is a literal string starting with `$`. Used in body string values and in path segments and query values.
import { badRequest } from '../problem/types.ts';
import { isLosslessNumber } from '../query/json.ts';

const REFERENCE = /^\$(\d+)((?:\.[^.]+)*)$/;

/** The response bodies of the operations run so far: [0] is operation 1's (undefined when it had none). */
export type Bodies = ReadonlyArray<unknown>;

/** What `text` stands for: itself, the unescaped literal, or the referenced value. */
function resolveString(text: string, bodies: Bodies, current: number): unknown {
  if (text.startsWith('$$')) return text.slice(1);
  const m = REFERENCE.exec(text);
  if (!m) return text;
  const n = Number(m[1]);
  if (!(n >= 1 && n < current)) {
    throw badRequest(`"${text}" refers to operation ${m[1]}, but only operations 1 to ${current - 1} have run before this one (write $$ for a literal $).`);
  }
  let value = bodies[n - 1];
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

/** A copy of a JSON value with each reference in a string value replaced by what it names. */
export function resolveValue(value: unknown, bodies: Bodies, current: number): unknown {
  if (typeof value === 'string') return resolveString(value, bodies, current);
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, bodies, current));
  if (value && typeof value === 'object' && !isLosslessNumber(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, bodies, current)]));
  }
  return value;
}

/** A scalar referenced from a path must be text, a number or a boolean. */
function asText(raw: string, bodies: Bodies, current: number): string {
  const v = resolveString(raw, bodies, current);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || isLosslessNumber(v)) return String(v);
  throw badRequest(`"${raw}" names ${v === null ? 'null' : 'an object or array'}, which cannot stand in a path.`);
}

/** The path with references in its segments and query values resolved (their values percent-encoded). */
export function resolvePath(path: string, bodies: Bodies, current: number): string {
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
    return d !== undefined && d.startsWith('$') ? encodeURIComponent(asText(d, bodies, current)) : s;
  };
  const resolved = route.split('/').map(segment).join('/');
  if (query === undefined) return resolved;
  const pairs = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    const d = decoded(pair.slice(eq + 1).replace(/\+/g, ' '));
    return d !== undefined && d.startsWith('$') ? `${pair.slice(0, eq)}=${encodeURIComponent(asText(d, bodies, current))}` : pair;
  });
  return `${resolved}?${pairs.join('&')}`;
}
