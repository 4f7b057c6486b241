// Password: a salted bcrypt hash (pgcrypto), written on insert and whenever the value changes; request roles may
// write the column but never read it. The sign-in entity's secret (api.identity) is its Password property.
import type { Entity } from '../model/types.ts';
import { literal, qname } from '../sql/ident.ts';
import { ifThen } from '../sql/layout.ts';
import { defineModule, NO_OPTIONS } from './def.ts';

/** bcrypt cost of the Password module's hashes; sign-in hashes at the same cost when no user matches. */
export const PASSWORD_COST = 10;
/** What a Password column holds: a bcrypt hash (pgcrypto writes $2a$), its CHECK constraint's pattern. */
export const BCRYPT_HASH = '^\\$2[abxy]\\$[0-9]{2}\\$[./A-Za-z0-9]{53}$';
/**
 * bcrypt hashes the first 72 bytes of a password and ignores the rest, so a longer one is refused (422) when
 * stored, and never matches at sign-in: two passwords sharing their first 72 bytes must not both open the door.
 */
export const PASSWORD_MAX_BYTES = 72;
/**
 * Passwords hashed in one transaction (a bulk create, a batch): bcrypt spends about 50 ms of the database's CPU
 * on each, so an anonymous bulk sign-up of 100 held a connection for 5 s. Past it: 413.
 */
export const PASSWORD_HASHES_PER_REQUEST = 10;

export const Password = defineModule({
  summary: 'a salted bcrypt hash, never readable',
  options: NO_OPTIONS,
  appliesTo: { ok: (p) => p.type === 'String' && !p.multiple, what: 'a String property' },
  managed: true,
  hidden: true,
  check({ p, fail }) {
    if (p.primary || p.unique || p.indexed || p.searchIndexed || p.enum || p.pattern || p.defaultValue !== undefined) {
      fail('Password', 'a Password property is stored hashed: it cannot be primary, unique, indexed, searchIndexed or carry enum, pattern or defaultValue');
    }
  },
  // Only hashes (the write rules hash every value written): a column that becomes a Password over plain text is
  // refused with the UPDATE that hashes it, and one that stops being a Password while holding hashes is refused.
  constraints({ table, col, check }) {
    const expr = `${col} ~ ${literal(BCRYPT_HASH)}`;
    check('Password', expr, 'password',
      `A Password column holds bcrypt hashes, and these values are not (plain text?). Hash them first: UPDATE ${qname('app', table)} SET ${col} = extensions.crypt(${col}, extensions.gen_salt('bf', ${PASSWORD_COST})) WHERE NOT (${expr});`);
  },
  trigger({ name, col, refuse, always }) {
    always.push(`IF NEW.${col} IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.${col} IS DISTINCT FROM OLD.${col}) THEN`,
      `  ${ifThen(`octet_length(NEW.${col}) > ${PASSWORD_MAX_BYTES}`, [refuse('PT422', `a password holds at most ${PASSWORD_MAX_BYTES} bytes (bcrypt reads no further)`, name, 'Password')])}`,
      `  _hashes := coalesce(nullif(current_setting('lib.password_hashes', true), ''), '0')::int + 1;  -- in this transaction`,
      `  ${ifThen(`_hashes > ${PASSWORD_HASHES_PER_REQUEST}`, [refuse('PT413', `at most ${PASSWORD_HASHES_PER_REQUEST} passwords are set in one request (each takes bcrypt's time): send the others apart`, name, 'Password')])}`,
      `  PERFORM set_config('lib.password_hashes', _hashes::text, true);`,
      '  PERFORM lib.hash_slot();  -- one of the few hashes the database runs at once',
      `  NEW.${col} := extensions.crypt(NEW.${col}, extensions.gen_salt('bf', ${PASSWORD_COST}));  -- Password: salted hash`, 'END IF;');
  },
});

/** The entity's Password properties (the sign-in entity's secret is the one). */
export function passwordProperties(e: Entity): string[] {
  return Object.entries(e.properties).filter(([, p]) => p.modules?.Password).map(([n]) => n);
}
