// The body of POST /<collection>/search: {where, sort, page, per_page, after, before, count, include, exclude}. `where`
// nests {and: [...]}, {or: [...]}, {not: …} and {<path>: {<op>: value, …}, …}; siblings are ANDed.
import { FILTER_OPS, type FilterNode, type FilterOp, type PropertyManifest, type SortKey } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { LIMITS } from './limits.ts';
import { condition, filterPath, through, type References } from './filter.ts';
import { parsePaging, parseProjection, parseSort, type Paging, type Projection } from './listing.ts';

export interface SearchRequest extends Paging {
  filter?: FilterNode;
  /** The references filters reach (`project.name`): SQL reads those tables under their read rules. */
  joined?: Record<string, Record<string, never>>;
  sort?: SortKey[];
  projection: Projection;
}

const KEYS = ['where', 'sort', 'page', 'per_page', 'after', 'before', 'count', 'include', 'exclude'];
const MAX_DEPTH = 32;

export const joinedArg = (joined: Set<string>) => (joined.size ? { joined: Object.fromEntries([...joined].map((n) => [n, {}])) } : {});

export function parseSearch(body: Record<string, unknown>, props: Record<string, PropertyManifest>, schemaOf: (property: string) => unknown,
  maxNodes = LIMITS.maxFilterNodes.fallback, embeds: string[] = [], references: References = {}): SearchRequest {
  const joined = new Set<string>();
  const unknown = Object.keys(body).find((k) => !KEYS.includes(k));
  let nodes = 0;
  /** Every group and condition counts; past the limit the search is refused before anything runs. */
  const count = (at: string) => {
    if (++nodes > maxNodes) throw badRequest(`"where" holds more than ${maxNodes} conditions and groups (${LIMITS.maxFilterNodes.env}); the limit was passed at ${at}.`);
  };
  if (unknown) throw badRequest(`Unknown search key "${unknown}"; a search body holds ${KEYS.join(', ')}.`);
  const filter = body.where === undefined ? undefined : node(body.where, 'where', 0);
  return {
    ...(filter ? { filter } : {}),
    ...joinedArg(joined),
    ...parsePaging(body),
    sort: parseSort(body.sort, props),
    projection: parseProjection(body.include, body.exclude, props, embeds),
  };

  function node(value: unknown, at: string, depth: number): FilterNode {
    if (depth > MAX_DEPTH) throw badRequest(`"where" nests deeper than ${MAX_DEPTH} levels.`);
    count(at);
    if (!isObject(value)) throw badRequest(`${at} must be an object.`);
    const parts: FilterNode[] = [];
    for (const [key, v] of Object.entries(value)) {
      const here = `${at}.${key}`;
      if (key === 'and' || key === 'or') {
        if (!Array.isArray(v) || v.length === 0) throw badRequest(`${here} must be a non-empty array.`);
        const children = v.map((c, i) => node(c, `${here}[${i}]`, depth + 1));
        parts.push(children.length === 1 ? children[0]! : key === 'and' ? { and: children } : { or: children });
      } else if (key === 'not') {
        parts.push({ not: node(v, here, depth + 1) });
      } else {
        parts.push(...conditions(key, v, here));
      }
    }
    if (parts.length === 0) throw badRequest(`${at} is empty.`);
    return parts.length === 1 ? parts[0]! : { and: parts };
  }

  function conditions(path: string, v: unknown, at: string): FilterNode[] {
    const { target, schema, via } = filterPath(props, schemaOf, references, path, `"${at}"`, joined);
    if (!isObject(v)) {
      count(at);
      return [through(condition(target, 'eq', v, false, `"${at}"`, schema), via)];
    }
    const ops = Object.entries(v);
    if (ops.length === 0) throw badRequest(`"${at}" needs an operator such as {"eq": …}.`);
    return ops.map(([op, value]) => {
      if (!(FILTER_OPS as readonly string[]).includes(op)) {
        throw badRequest(`Unknown filter operator "${op}" in "${at}"; operators are ${FILTER_OPS.join(', ')}.`);
      }
      count(`${at}.${op}`);
      return through(condition(target, op as FilterOp, value, false, `"${at}.${op}"`, schema), via);
    });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
