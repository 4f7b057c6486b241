// Body numbers a double cannot hold, judged by their text: ajv sees the double, so a fraction it rounds away
// or an int64 value rounded into the column's range passed, and then failed the database's cast (400 naming nothing).
import type { PropertyManifest } from '../../compiler/manifest/types.ts';
import { INT64_EXACT } from '../../compiler/ir/columns.ts';
import type { FieldError } from '../problem/types.ts';
import { isLosslessNumber } from '../codec/json.ts';

/**
 * `twin` (a body's exact twin) with each number whose fraction a double rounds away (1.0000000000000000001 reads
 * as 1) standing in as 0.5, and the places (JSON pointers) where they stand: ajv's `integer` errors there are
 * the answer (422 naming them, as for 1.5). Other numbers become their doubles.
 */
export function fractionStandIns(twin: object): { stood: Record<string, unknown>; places: Set<string> } {
  const places = new Set<string>();
  const stand = (v: unknown, path: string): unknown => {
    if (isLosslessNumber(v)) {
      if (!hasFraction(v.toString())) return Number(v.toString());
      places.add(path);
      return 0.5;
    }
    if (Array.isArray(v)) return v.map((x, i) => stand(x, `${path}/${i}`));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stand(x, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)]));
    return v;
  };
  return { stood: stand(twin, '') as Record<string, unknown>, places };
}

/**
 * An int64 property's whole values (its elements, when multiple) outside the bigint column's range, in `twin`
 * (a body's exact twin): 9223372036854775808 reads as 2^63, the maximum's own double, so ajv passed it.
 */
export function int64Overflows(twin: Record<string, unknown>, props: Record<string, PropertyManifest>): FieldError[] {
  const out: FieldError[] = [];
  for (const [name, value] of Object.entries(twin)) {
    const p = Object.hasOwn(props, name) ? props[name] : undefined;
    if (p?.type !== 'Number' || p.format !== 'int64') continue;
    const values = Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      if (!isLosslessNumber(v) || hasFraction(v.toString())) return;
      const where = Array.isArray(value) ? `${name}.${i}` : name;
      const n = wholeOf(v.toString());
      if (n > INT64_EXACT.maximum) out.push({ property: name, rule: 'maximum', message: `${where} must be <= ${INT64_EXACT.maximum}` });
      if (n < INT64_EXACT.minimum) out.push({ property: name, rule: 'minimum', message: `${where} must be >= ${INT64_EXACT.minimum}` });
    });
  }
  return out;
}

/** A JSON number's text as its sign, its digits without the point, and where the point falls among them (the exponent applied). */
function decimal(text: string): { negative: boolean; digits: string; point: number } | undefined {
  const m = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return undefined;
  return { negative: m[1] === '-', digits: m[2]! + (m[3] ?? ''), point: m[2]!.length + Number(m[4] ?? '0') };
}

/** Whether a JSON number's text has a fraction that is not zero: 1.5, 15e-2 and 1e-400 have one; 1.0, 1e3 and 100e-2 do not. */
export function hasFraction(text: string): boolean {
  const d = decimal(text);
  return d !== undefined && /[1-9]/.test(d.digits.slice(Math.max(0, d.point)));
}

/** Digits past which a whole number is beyond any bound compared here (int64 has 19): 1e400 is not expanded. */
const WIDEST = 40;

/** The whole number a JSON number's text without a fraction holds; one of WIDEST digits past it stands for any larger. */
function wholeOf(text: string): bigint {
  const d = decimal(text)!;
  const significant = d.digits.replace(/^0+/, '');
  if (significant === '') return 0n;
  const point = d.point - (d.digits.length - significant.length); // leading zeros removed
  if (point <= 0) return 0n;
  const magnitude = point > WIDEST ? 10n ** BigInt(WIDEST) : BigInt(significant.slice(0, point).padEnd(point, '0'));
  return d.negative ? -magnitude : magnitude;
}
