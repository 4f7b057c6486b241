// Email: stored lowercase with a strict syntax check; a filter's value on it is lowered the same way.
// The sign-in entity's login (api.identity) is its Email property.
import type { Entity } from '../model/types.ts';
import { defineModule, NO_OPTIONS } from './def.ts';

export const Email = defineModule({
  summary: 'stored lowercase; syntax checked (<table>_<prop>_email)',
  options: NO_OPTIONS,
  appliesTo: { ok: (p) => p.type === 'String' && !p.multiple, what: 'a String property' },
  check({ p, fail }) {
    // A value with capitals could never be stored.
    const upper = [...(p.enum ?? []), ...(typeof p.defaultValue === 'string' ? [p.defaultValue] : [])].find((v) => v !== v.toLowerCase());
    if (upper !== undefined) fail('Email', `"${upper}" can never be stored: an Email is stored lowercase`, 'modules/Email');
  },
  constraints({ col, check }) {
    check('email', `lib.is_email(${col})`);
  },
  trigger({ col, always }) {
    always.push(`NEW.${col} := lower(NEW.${col});  -- Email: stored lowercase`);
  },
  field: { email: true }, // stored lowercase: a filter's value is lowered too
});

/** The entity's Email properties (the sign-in entity's login is the one). */
export function emailProperties(e: Entity): string[] {
  return Object.entries(e.properties).filter(([, p]) => p.modules?.Email).map(([n]) => n);
}
