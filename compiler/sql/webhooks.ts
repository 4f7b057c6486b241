// The model's webhooks (api.webhooks) as rows of lib.webhooks (compiler/sql/webhooks.sql), which the gateway reads:
// added or changed in place (a webhook keeps its position in the log), removed with their deliveries.
import type { Model } from '../model/types.ts';
import { literal, textArray } from './ident.ts';

export function webhooksDdl(model: Model): string {
  const hooks = model.api.webhooks ?? [];
  const list = (values?: readonly string[]) => (values ? textArray(values) : 'NULL');
  return [
    `DELETE FROM lib.webhooks WHERE name <> ALL (${textArray(hooks.map((h) => h.name))});  -- removed from the model, with their deliveries`,
    ...hooks.map((h) => [
      'INSERT INTO lib.webhooks (name, url, entities, actions)',
      `VALUES (${literal(h.name)}, ${literal(h.url)}, ${list(h.entities)}, ${list(h.actions)})`,
      'ON CONFLICT (name) DO UPDATE SET url = EXCLUDED.url, entities = EXCLUDED.entities, actions = EXCLUDED.actions;',
    ].join('\n')),
  ].join('\n\n');
}
