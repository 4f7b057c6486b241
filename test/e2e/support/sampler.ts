// Values for the schema-driven probe: a seeded random source, a sampler that writes a value an OpenAPI
// (JSON Schema 2020-12) schema accepts, and mutations that break one thing about a valid value.
export type Json = Record<string, any>;

/** mulberry32: small, fast and the same sequence for the same seed on every machine. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Sampler {
  constructor(readonly doc: Json, readonly rnd: () => number) {}

  int(n: number): number { return Math.floor(this.rnd() * n); }
  pick<T>(xs: readonly T[]): T { return xs[this.int(xs.length)]!; }
  chance(p: number): boolean { return this.rnd() < p; }

  resolve(s: Json): Json {
    let at = s;
    for (let i = 0; i < 10 && typeof at?.$ref === 'string'; i++) {
      at = at.$ref.slice(2).split('/').reduce((node: Json, key: string) => node?.[decodeURIComponent(key)], this.doc);
    }
    return at ?? {};
  }

  /** A value the schema accepts (as far as this sampler knows schemas: good enough to get past the gateway). */
  value(schema: Json, depth = 0): unknown {
    const s = this.resolve(schema);
    if ('const' in s) return s.const;
    if (s.enum) return this.pick(s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) return this.value(this.pick(alternatives), depth + 1);
    if (s.allOf) return Object.assign({}, ...s.allOf.map((x: Json) => this.value(x, depth + 1)));
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : ['string'];
    const type = this.pick(types.filter((t) => t !== 'null').length ? types.filter((t) => t !== 'null') : types);
    switch (type) {
      case 'null': return null;
      case 'boolean': return this.chance(0.5);
      case 'integer': return Math.floor((s.minimum ?? 0) + this.rnd() * Math.min(1000, (s.maximum ?? 1000) - (s.minimum ?? 0)));
      case 'number': return (s.minimum ?? 0) + Math.round(this.rnd() * Math.min(100, (s.maximum ?? 100) - (s.minimum ?? 0)) * 100) / 100;
      case 'array': return depth > 4 ? [] : Array.from({ length: Math.max(s.minItems ?? 0, this.int(3)) }, () => this.value(s.items ?? {}, depth + 1));
      case 'object': {
        if (depth > 4) return {};
        const out: Json = {};
        for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
          if ((s.required ?? []).includes(k) || this.chance(0.5)) out[k] = this.value(v, depth + 1);
        }
        return out;
      }
      default: return this.text(s);
    }
  }

  text(s: Json): string {
    switch (s.format) {
      case 'date': return '2024-05-01';
      case 'date-time': return '2024-05-01T10:00:00Z';
      case 'time': return '10:30:00';
      case 'email': return `p${this.int(1e6)}@example.com`;
      case 'uri': return 'https://example.com/x';
    }
    if (s.pattern === '^[a-z0-9-]+$') return `s-${this.int(1e6)}`;
    const named = s.pattern ? this.fromPattern(s.pattern) : undefined;
    if (named !== undefined) return named;
    const n = Math.max(s.minLength ?? 1, Math.min(s.maxLength ?? 12, 1 + this.int(12)));
    return Array.from({ length: n }, () => this.pick('abcdefghij-_ é'.split(''))).join('').trim() || 'x';
  }

  /**
   * A string a pattern that lists names accepts (include, exclude, sort: `^(id|title|meta(\\.[^.,]+)*)(,…)*$`):
   * one or two of the names it holds, each kept only when the pattern accepts it; undefined when none is.
   */
  fromPattern(pattern: string): string | undefined {
    const re = new RegExp(pattern);
    const names = [...new Set(pattern.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])].filter((n) => re.test(n));
    if (!names.length) return undefined;
    const first = this.pick(names);
    const two = `${first},${this.pick(names.filter((n) => n !== first).concat(first))}`;
    return this.chance(0.3) && names.length > 1 && re.test(two) ? two : first;
  }

  /** One thing broken about a valid object: a required member dropped, a wrong type, an unknown member, a huge or deep value. */
  mutate(valid: Json, schema: Json): unknown {
    const s = this.resolve(schema);
    const keys = Object.keys(s.properties ?? {});
    const key = keys.length ? this.pick(keys) : 'x';
    const out: Json = { ...valid };
    switch (this.int(8)) {
      case 0: { const req: string[] = s.required ?? []; if (req.length) delete out[this.pick(req)]; else out.unknown_member = 1; return out; }
      case 1: out[key] = this.pick([42, 'text', true, null, [], {}, -1e300, '2024-13-45']); return out;
      case 2: out[`not_a_property_${this.int(100)}`] = 'x'; return out;
      case 3: out[key] = 'y'.repeat(5000 + this.int(5000)); return out;
      case 4: { let deep: Json = { leaf: 1 }; for (let i = 0; i < 60; i++) deep = { d: deep }; out[key] = deep; return out; }
      case 5: return this.pick([[], 'text', 7, null, [valid]]);
      case 6: out[key] = { $ne: 1, "'; drop table x; --": 'x' }; return out;
      default: out[key] = this.pick(['\u0000', '\ud800', '%00', '../../etc', '${x}', 'a'.repeat(300)]); return out;
    }
  }
}
