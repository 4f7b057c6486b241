// Slug: a lowercase, unique, URL-safe String (`hello-world`). When a create leaves it out, it is derived from the
// property the options name (`"Slug": {"from": "title"}`): non-ASCII dropped (nothing is transliterated: unaccent
// is not installed), lowercased, every run of other characters one '-', no '-' at either end.
import { ident, literal } from '../sql/ident.ts';
import { ifThen } from '../sql/layout.ts';
import { defineModule } from './def.ts';

/** What a slug is: lowercase letters and digits in words joined by single dashes. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

/** The characters of a short String column (compiler/ir/columns.ts SHORT_STRING_CHARS): a derived slug is cut to them. */
const SHORT = 255;

export const Slug = defineModule<{ from: string }>({
  summary: 'a lowercase, unique, URL-safe String, derived from another property when a create leaves it out',
  options: {
    type: 'object', additionalProperties: false, required: ['from'],
    properties: { from: { type: 'string', minLength: 1, description: 'The String property a missing slug is derived from.' } },
  },
  appliesTo: { ok: (p) => p.type === 'String' && !p.multiple, what: 'a String property' },
  fills: true,
  check({ name, p, options, siblings, fail }) {
    const source = siblings[options.from];
    if (!source || options.from === name) fail('Slug', `"from" must name another property of the same entity, not "${options.from}"`, 'modules/Slug/from');
    else if (source.type !== 'String' || source.multiple || source.modules?.Password || source.modules?.FileURL || source.modules?.ImageURL) {
      fail('Slug', `"from" must name a single String property ("${options.from}" is not one)`, 'modules/Slug/from');
    }
    if (p.enum || p.defaultValue !== undefined) fail('Slug', 'a Slug is unique and derived: it cannot carry enum or defaultValue', 'modules/Slug');
  },
  constraints({ col, check, unique }) {
    // Rule `pattern`: a malformed slug is answered as any pattern a value breaks (422, "does not match its pattern").
    check('pattern', `${col} ~ ${literal(SLUG_PATTERN)}`, 'slug');
    unique();
  },
  trigger({ p, col, options, onInsert }) {
    const slug = `NEW.${col}`;
    onInsert.push(ifThen(`${slug} IS NULL`, [
      `${slug} := ${p.long ? '' : 'left('}regexp_replace(NEW.${ident(options.from)}, '[^\\x01-\\x7f]', '', 'g')${p.long ? '' : `, ${SHORT})`};  -- Slug: from ${options.from}, non-ASCII dropped`,
      `${slug} := regexp_replace(lower(${slug} COLLATE "C"), '[^a-z0-9]+', '-', 'g');`,
      `${slug} := nullif(trim(both '-' from ${slug}), '');`,
    ], 0));
  },
  wire: { value: (base) => ({ ...base, pattern: SLUG_PATTERN }) },
});
