// UpdatedTimestamp: now() on every write.
import { defineModule, NO_OPTIONS } from './def.ts';

export const UpdatedTimestamp = defineModule({
  summary: 'now() on every write',
  options: NO_OPTIONS,
  appliesTo: { ok: (p) => p.type === 'DateTime' && !p.multiple, what: 'a DateTime property' },
  managed: true,
  changesOnEveryWrite: true,
  fills: true,
  serverManaged: true,
  alwaysSet: true,
  trigger({ col, onInsert, onUpdate }) {
    onInsert.push(`NEW.${col} := now();  -- UpdatedTimestamp`);
    onUpdate.push(`NEW.${col} := now();`);
  },
});
