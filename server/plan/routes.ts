// Matches route segments against the manifest: collections, nested collections along every parent
// chain, items, restore, relations and link targets. The result maps each allowed method to an endpoint.
import type { Manifest, RelationManifest, ResourceManifest } from '../../compiler/manifest/types.ts';
import { OPERATIONS, operationsAt, type Method, type OperationName, type PathShape } from '../../compiler/query/operations.ts';
import { HISTORY_SEGMENT } from '../../compiler/model/history.ts';

export type Action = OperationName;

export interface Endpoint {
  action: Action;
  resource: ResourceManifest;
  id?: string;
  parent?: { resource: ResourceManifest; id: string };
  /** The parent's own ancestors on a deeper path, outermost first (`/projects/1/posts/2/comments`: projects 1). */
  ancestors?: Array<{ resource: ResourceManifest; id: string }>;
  relation?: { name: string; def: RelationManifest };
  /** A link's target key; on historyVersion, the version asked for. */
  target?: string;
}

export type { Method };
export type Endpoints = Map<Method, Endpoint>;

export interface RouteIndex {
  byCollection: Map<string, ResourceManifest>;
  /** Parent entity -> child collection -> child resource. */
  children: Map<string, Map<string, ResourceManifest>>;
}

export function indexRoutes(manifest: Manifest): RouteIndex {
  const index: RouteIndex = { byCollection: new Map(), children: new Map() };
  for (const r of Object.values(manifest.resources)) {
    index.byCollection.set(r.collection, r);
    if (!r.parent) continue;
    const kids = index.children.get(r.parent.entity) ?? new Map<string, ResourceManifest>();
    kids.set(r.collection, r);
    index.children.set(r.parent.entity, kids);
  }
  return index;
}

/** Every method the segments answer to; empty when the path is not a route at all (404). */
export function matchRoute(index: RouteIndex, segments: string[]): Endpoints {
  const out: Endpoints = new Map();
  let resource = segments[0] === undefined ? undefined : index.byCollection.get(segments[0]);
  const chain: Array<{ resource: ResourceManifest; id: string }> = [];
  // Down the parent chain (finite: the model refuses parent cycles), two segments a level: <id>/<child collection>.
  for (let at = 1; resource; at += 2) {
    collectionRoutes(out, resource, segments, at, chain);
    const id = segments[at], child = segments[at + 1];
    if (id === undefined || child === undefined) break;
    chain.push({ resource, id });
    resource = index.children.get(resource.entity)?.get(child);
  }
  return out;
}

/** The endpoints of `resource` at `segments[at…]` (at most three: id, sub-path, target), added to `out`. */
function collectionRoutes(out: Endpoints, resource: ResourceManifest, segments: string[], at: number, chain: Array<{ resource: ResourceManifest; id: string }>): void {
  if (segments.length > at + 3) return;
  const id = segments[at], sub = segments[at + 1], target = segments[at + 2];
  const where: Where = { out, resource, chain };
  if (id === undefined) return addAt(where, 'collection');
  if (sub === undefined) {
    if (id === 'search') addAt(where, 'search');
    if (id === 'bulk') addAt(where, 'bulk');
    return addAt(where, 'item', { id });
  }
  if (sub === 'restore' && target === undefined && resource.functions.restore) addAt(where, 'restore', { id });
  // Record history: the model refuses a relation or child collection of that name on an entity that keeps it.
  if (sub === HISTORY_SEGMENT && resource.functions.history) {
    return target === undefined ? addAt(where, 'history', { id }) : addAt(where, 'historyVersion', { id, target });
  }
  const def = Object.hasOwn(resource.relations, sub) ? resource.relations[sub] : undefined;
  if (!def) return;
  const relation = { name: sub, def };
  if (target === undefined) addAt(where, 'relation', { id, relation }, def.kind);
  else if (def.kind === 'manyToMany') addAt(where, 'relationTarget', { id, relation, target }, def.kind);
}

interface Where { out: Endpoints; resource: ResourceManifest; chain: Array<{ resource: ResourceManifest; id: string }> }

/** Every operation of the table at this path shape (compiler/query/operations.ts), for each method not yet taken. */
function addAt(w: Where, shape: PathShape, e: Omit<Endpoint, 'resource' | 'action'> = {}, relation?: 'manyToMany' | 'oneToOne'): void {
  const parent = w.chain.at(-1);
  for (const action of operationsAt(shape, relation)) {
    const method = OPERATIONS[action].method;
    if (w.out.has(method)) continue;
    w.out.set(method, {
      resource: w.resource, ...(parent ? { parent: { ...parent } } : {}), ...(w.chain.length > 1 ? { ancestors: w.chain.slice(0, -1) } : {}), action, ...e,
    });
  }
}

/** The route template of an endpoint (`/projects/{project_id}/posts/{id}`), for logs and metrics. */
export function routeTemplate(e: Endpoint): string {
  // One template per resource, action, depth and relation: made once, then read on each request.
  const depth = (e.ancestors?.length ?? 0) + (e.parent ? 1 : 0);
  const key = `${e.action} ${depth} ${e.relation?.name ?? ''}`;
  let made = templates.get(e.resource);
  if (!made) templates.set(e.resource, made = new Map());
  let template = made.get(key);
  if (template === undefined) made.set(key, template = makeTemplate(e));
  return template;
}

const templates = new WeakMap<ResourceManifest, Map<string, string>>();

function makeTemplate(e: Endpoint): string {
  const levels = [...e.ancestors ?? [], ...(e.parent ? [e.parent] : [])].map((a) => a.resource);
  const keyName = (child: ResourceManifest) => child.parent?.property ?? 'parent';
  const base = levels.map((r, i) => `/${r.collection}/{${keyName(levels[i + 1] ?? e.resource)}}`).join('') + `/${e.resource.collection}`;
  switch (OPERATIONS[e.action].path) {
    case 'collection': return base;
    case 'search': return `${base}/search`;
    case 'bulk': return `${base}/bulk`;
    case 'item': return `${base}/{id}`;
    case 'restore': return `${base}/{id}/restore`;
    case 'relation': return `${base}/{id}/${e.relation!.name}`;
    case 'relationTarget': return `${base}/{id}/${e.relation!.name}/{target_id}`;
    case 'history': return `${base}/{id}/history`;
    case 'historyVersion': return `${base}/{id}/history/{version}`;
  }
}

/** The Allow header's methods, HEAD alongside GET. */
export function allowed(endpoints: Endpoints): string[] {
  const methods: string[] = [...endpoints.keys()];
  if (endpoints.has('GET')) methods.splice(1, 0, 'HEAD');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return methods.sort((a, b) => order.indexOf(a) - order.indexOf(b));
}
