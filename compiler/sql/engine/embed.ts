// The SQL of embeds (`include=project,tags,site.region`): correlated subqueries in the one statement of a
// read or list, each embedded table judged by its own policies under its own `read` scenario for the caller.
import { ident, literal } from '../ident.ts';
import { chain, paren, query } from '../layout.ts';
import { fn } from './refusals.ts';
import { emptyRow, jsonObject, member, rowJsonText, withMembers, type EmbedShape, type Shape } from './shape.ts';

/**
 * The scenario an embedded table's policies judge by when the caller has none for `read`: no policy has
 * this key (scenario labels are printable), so a hidden record embeds as null, or is left out of a list.
 */
const NO_SCENARIO = 'chr(1)';

/**
 * Text of the members (`,"name":value…`, or '') that each embed `tree` (a jsonb expression: the asked embeds at
 * this level, `{"site": {"region": {}}}`) names adds to the row at `alias`, after its properties (withMembers);
 * `args` is the request's arguments (embed_limit). Empty when the entity has no embeds.
 */
export function embedMembers(s: Shape, alias: string, tree: string, args: string): string {
  if (!s.embeds.length) return '';
  return `(${chain(s.embeds.map((e, i) => {
    const x = `${alias}_${i}`;
    const value = embedValue(s, e, alias, x, `${tree} -> ${literal(e.name)}`, args);
    return `CASE WHEN ${tree} ? ${literal(e.name)} THEN ${member(e.name, value)} ELSE '' END`;
  }), '||')})`;
}

function embedValue(s: Shape, e: EmbedShape, alias: string, x: string, below: string, args: string): string {
  const t = e.target;
  const row = withMembers(t, rowJsonText(t, x), embedMembers(t, x, below, args));
  const live = t.soft ? ` AND ${x}.deleted_at IS NULL` : '';
  switch (e.kind) {
    case 'reference':
      return paren(query([`SELECT ${row}`, `FROM ${t.rel} ${x}`, `WHERE ${x}.${ident(t.pk)} = ${alias}.${ident(e.column!)}${live}`]));
    case 'oneToOne': // never written: every property null, as its own read answers
      return `coalesce(${paren(query([`SELECT ${row}`, `FROM ${t.rel} ${x}`, `WHERE ${x}.${ident(t.pk)} = ${alias}.${ident(s.pk)}`]))},`
        + ` ${emptyRow(t, `${alias}.${ident(s.pk)}`)})`;
    case 'manyToMany': {
      const j = e.join!, edge = jsonObject(j.edge.map((c) => [c, `${x}_j.${ident(c)}`]));
      const rows = query([`SELECT ${withMembers(t, row, member('edge', edge))} AS v, ${x}.${ident(t.pk)} AS k`,
        `FROM ${j.rel} ${x}_j JOIN ${t.rel} ${x} ON ${x}.${ident(t.pk)} = ${x}_j.${ident(j.targetColumn)}`,
        `WHERE ${x}_j.${ident(j.ownerColumn)} = ${alias}.${ident(s.pk)}${live}`,
        `ORDER BY ${x}.${ident(t.pk)} LIMIT (${args} ->> 'embed_limit')::integer`]);
      return paren(query([`SELECT coalesce(json_agg(${x}_r.v ORDER BY ${x}_r.k), '[]'::json)`, `FROM ${paren(rows)} ${x}_r`]));
    }
  }
}

/**
 * pl/pgSQL before a statement that embeds: each asked embedded entity's table takes its own `read` winner
 * for the caller as its scenario (join and sub-resource rows follow their owner's).
 */
export function embedScenarios(s: Shape, tree = "args -> 'embed'", indent = ''): string[] {
  return s.embeds.filter((e) => e.kind !== 'oneToOne').flatMap((e) => {
    const t = e.target, below = `${tree} -> ${literal(e.name)}`;
    return [
      `${indent}IF ${tree} ? ${literal(e.name)} THEN`,
      `${indent}  PERFORM set_config(${literal(`request.scenario.${t.name}`)}, coalesce(${fn(t, 'access')}('read'), ${NO_SCENARIO}), true);`,
      ...embedScenarios(t, below, `${indent}  `),
      `${indent}END IF;`,
    ];
  });
}
