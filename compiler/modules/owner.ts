// Owner: the caller's `sub`, written by the server whatever the body says; matchResourceOwner compares it.
import type { Entity } from '../model/types.ts';
import { literal } from '../sql/ident.ts';
import { defineModule, NO_OPTIONS } from './def.ts';

export const Owner = defineModule({
  summary: "the caller's sub claim, filled on create",
  options: NO_OPTIONS,
  appliesTo: { ok: (p) => p.type === 'String' && !p.multiple, what: 'a String property' },
  entityOnly: true,
  managed: true,
  fills: true,
  serverManaged: true,
  lookup: true,
  trigger({ col, roles, onInsert }) {
    // The caller, whatever the body said (an anonymous caller owns nothing: it named any user it liked). Only a
    // statement outside the request roles (a seed, an import) may give the value itself.
    onInsert.push(`NEW.${col} := CASE WHEN current_user IN (${literal(roles.anon)}, ${literal(roles.authenticated)}) THEN auth.uid() ELSE coalesce(auth.uid(), NEW.${col}) END;  -- Owner: the caller`);
  },
});

/** The entity's Owner property, if it has one (matchResourceOwner's default). */
export function ownerProperty(e: Entity): string | undefined {
  return Object.entries(e.properties).find(([, p]) => p.modules?.Owner)?.[0];
}
