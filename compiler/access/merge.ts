// Which scenarios apply to an entity's action, in order (design.md 4): the action's own, then the
// entity's, then the API's; `overrideParentScenarios` keeps only the action's. Each keeps its level.
import type { ActionName, Entity, Model, Scenario } from '../model/types.ts';

export type Level = 'action' | 'entity' | 'api';

export interface PlacedScenario {
  scenario: Scenario;
  level: Level;
  /** Unique per table: the label, or label#n when one label names different predicates. */
  key: string;
}

/** The actions an entity has: every CRUD action, restore with softDelete, link/unlink with a manyToMany. */
export function entityActions(e: Entity): ActionName[] {
  const actions: ActionName[] = ['list', 'search', 'read', 'create', 'update', 'delete'];
  if (e.softDelete) actions.push('restore');
  if (Object.values(e.relations ?? {}).some((r) => r.kind === 'manyToMany')) actions.push('link', 'unlink');
  return actions;
}

/** The ordered scenarios of every action of an entity, with keys shared where label and predicate agree. */
export function mergedScenarios(model: Model, e: Entity): Map<ActionName, PlacedScenario[]> {
  const keys = new Map<string, string>();
  const used = new Set<string>();
  const keyOf = (s: Scenario) => {
    const sig = `${s.label}\u0000${JSON.stringify(s.predicate)}`;
    let key = keys.get(sig);
    if (!key) {
      key = s.label;
      for (let n = 2; used.has(key); n++) key = `${s.label}#${n}`;
      keys.set(sig, key);
      used.add(key);
    }
    return key;
  };
  const out = new Map<ActionName, PlacedScenario[]>();
  for (const action of entityActions(e)) {
    const settings = e.actions?.[action];
    const own = (settings?.scenarios ?? []).map((s) => ({ scenario: s, level: 'action' as const }));
    const inherited = settings?.overrideParentScenarios ? [] : [
      ...(e.scenarios ?? []).map((s) => ({ scenario: s, level: 'entity' as const })),
      ...(model.api.scenarios ?? []).map((s) => ({ scenario: s, level: 'api' as const })),
    ];
    out.set(action, [...own, ...inherited].map((p) => ({ ...p, key: keyOf(p.scenario) })));
  }
  return out;
}
