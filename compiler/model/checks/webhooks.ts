// Domain rules of `api.webhooks` (design 9): names unique (each is a secret's variable and a metrics label),
// entities the model has, actions the change log records.
import { CHANGE_ACTIONS } from '../types.ts';
import { CheckContext } from './context.ts';

export function checkWebhooks(ctx: CheckContext): void {
  const seen = new Set<string>();
  (ctx.model.api.webhooks ?? []).forEach((hook, i) => {
    const at = `/api/webhooks/${i}`;
    if (seen.has(hook.name)) ctx.fail(`${at}/name`, 'Webhooks', `the webhook name "${hook.name}" is used twice`);
    seen.add(hook.name);
    (hook.entities ?? []).forEach((entity, j) => {
      if (!ctx.model.entities[entity]) {
        ctx.fail(`${at}/entities/${j}`, 'Unknown entity', `no entity named "${entity}" (known: ${Object.keys(ctx.model.entities).join(', ')})`);
      }
    });
    (hook.actions ?? []).forEach((action, j) => {
      if (!CHANGE_ACTIONS.includes(action)) {
        ctx.fail(`${at}/actions/${j}`, 'Unknown action', `unknown action "${action}" (known: ${CHANGE_ACTIONS.join(', ')})`);
      }
    });
  });
}
