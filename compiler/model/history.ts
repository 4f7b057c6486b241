// Record history (design 9): which entities keep their versions and for how long. One reading of the model's
// `history` setting, shared by validation, the compiled SQL, the manifest and the router.
import type { Entity } from './types.ts';
import type { CheckContext } from './checks/context.ts';
import { pointer as ptr } from './errors.ts';
import { versionProperty } from '../modules/version.ts';

/** The sub-path of a record that serves its history: /{collection}/{id}/history[/{version}]. */
export const HISTORY_SEGMENT = 'history';

/** How long an entity's change-log rows are kept for its history: seconds, or null for as long as the record lives. */
export interface HistoryPolicy { keepSeconds: number | null }

const hasVersion = (e: Entity) => versionProperty(e) !== undefined;

/** The entity's history, or undefined when it keeps none: on by default with a Version property, off with `history: false`. */
export function historyOf(e: Entity): HistoryPolicy | undefined {
  if (e.history === false || !hasVersion(e)) return undefined;
  return { keepSeconds: typeof e.history === 'object' ? e.history.keepDays * 86_400 : null };
}

/**
 * `history: true` or `{keepDays}` needs a Version property (its versions are what is kept); and nothing else of the
 * record may take the path `…/{id}/history`: a relation of that name, or a child collection of that name.
 */
export function checkHistory(ctx: CheckContext, name: string, e: Entity): void {
  const at = ptr('entities', name);
  if (e.history !== undefined && e.history !== false && !hasVersion(e)) {
    ctx.fail(`${at}/history`, 'History', 'history keeps the versions of a record: it needs a property with the Version module (or leave "history" out)');
  }
  if (!historyOf(e)) return;
  if (e.relations?.[HISTORY_SEGMENT]) {
    ctx.fail(`${at}${ptr('relations', HISTORY_SEGMENT)}`, 'Name Collision',
      `relation "${HISTORY_SEGMENT}": /${e.collection}/{id}/${HISTORY_SEGMENT} is the record's history; rename the relation or set "history": false`);
  }
  for (const [child, c] of Object.entries(ctx.model.entities)) {
    if (c.parent?.entity === name && c.collection === HISTORY_SEGMENT) {
      ctx.fail(`${ptr('entities', child)}/collection`, 'Name Collision',
        `collection "${HISTORY_SEGMENT}" under ${name}, which keeps history: /${e.collection}/{id}/${HISTORY_SEGMENT} is the history of its record`);
    }
  }
}
