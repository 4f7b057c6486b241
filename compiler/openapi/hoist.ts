// Moves the parameters operations spell out inline into components.parameters, one per distinct
// parameter, named `<tag>_<name>`: nested and top-level paths share them and the document stays small.
import type { Schema } from './common.ts';

export function hoistParameters(paths: Record<string, Schema>, parameters: Record<string, Schema>): void {
  const byContent = new Map<string, string>();
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item) as Schema[]) {
      const tag = (op.tags as string[] | undefined)?.[0] ?? 'Common';
      const list = op.parameters as Schema[] | undefined;
      if (!list) continue;
      op.parameters = list.map((p) => {
        if (p.$ref) return p;
        const text = JSON.stringify(p);
        let key = byContent.get(text);
        if (!key) {
          const base = `${tag}_${String(p.in === 'path' ? `path_${String(p.name)}` : p.name)}`.replace(/[^A-Za-z0-9._-]/g, '_');
          key = base;
          for (let i = 2; parameters[key]; i++) key = `${base}_${i}`;
          parameters[key] = p;
          byContent.set(text, key);
        }
        return { $ref: `#/components/parameters/${key}` };
      });
    }
  }
}
