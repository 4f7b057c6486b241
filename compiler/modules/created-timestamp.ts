// CreatedTimestamp: now() on insert, then kept whatever a write says.
import { defineModule, NO_OPTIONS } from './def.ts';

export const CreatedTimestamp = defineModule({
  summary: 'now() on create, never changed',
  options: NO_OPTIONS,
  appliesTo: { ok: (p) => p.type === 'DateTime' && !p.multiple, what: 'a DateTime property' },
  managed: true,
  fills: true,
  serverManaged: true,
  alwaysSet: true,
  trigger({ col, p, onInsert, onUpdate }) {
    onInsert.push(`NEW.${col} := now();  -- CreatedTimestamp`);
    if (!p.readOnly) onUpdate.push(`NEW.${col} := OLD.${col};`);
  },
});
