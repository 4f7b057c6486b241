// Matches route segments against the manifest: collections, nested collections one parent deep,
// items, restore, relations and link targets. The result maps each allowed method to an endpoint.
import type { Manifest, RelationManifest, ResourceManifest } from '../../compiler/manifest/types.ts';

export type Action =
  | 'list' | 'search' | 'create' | 'read' | 'replace' | 'patch' | 'delete' | 'restore'
  | 'relationList' | 'link' | 'unlink' | 'subRead' | 'subReplace';

export interface Endpoint {
  action: Action;
  resource: ResourceManifest;
  id?: string;
  parent?: { resource: ResourceManifest; id: string };
  relation?: { name: string; def: RelationManifest };
  target?: string;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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
  const [first, second, third] = segments;
  const top = first === undefined ? undefined : index.byCollection.get(first);
  if (!top) return out;
  collectionRoutes(out, top, segments.slice(1));
  const child = second !== undefined && third !== undefined ? index.children.get(top.entity)?.get(third) : undefined;
  if (child) collectionRoutes(out, child, segments.slice(3), { resource: top, id: second! });
  return out;
}

function collectionRoutes(out: Endpoints, resource: ResourceManifest, rest: string[], parent?: Endpoint['parent']): void {
  const add = (method: Method, e: Omit<Endpoint, 'resource'>) => {
    if (!out.has(method)) out.set(method, { resource, ...(parent ? { parent } : {}), ...e });
  };
  const [id, sub, target, ...more] = rest;
  if (more.length > 0) return;
  if (id === undefined) {
    add('GET', { action: 'list' });
    add('POST', { action: 'create' });
    return;
  }
  if (sub === undefined) {
    if (id === 'search') add('POST', { action: 'search' });
    add('GET', { action: 'read', id });
    add('PUT', { action: 'replace', id });
    add('PATCH', { action: 'patch', id });
    add('DELETE', { action: 'delete', id });
    return;
  }
  if (sub === 'restore' && target === undefined && resource.functions.restore) add('POST', { action: 'restore', id });
  // Relations are addressed from the top level only: their functions take no parent to check.
  const def = parent || !Object.hasOwn(resource.relations, sub) ? undefined : resource.relations[sub];
  if (!def) return;
  const relation = { name: sub, def };
  if (def.kind === 'manyToMany') {
    if (target === undefined) add('GET', { action: 'relationList', id, relation });
    else {
      add('PUT', { action: 'link', id, relation, target });
      add('DELETE', { action: 'unlink', id, relation, target });
    }
  } else if (target === undefined) {
    add('GET', { action: 'subRead', id, relation });
    add('PUT', { action: 'subReplace', id, relation });
  }
}

/** The Allow header's methods, HEAD alongside GET. */
export function allowed(endpoints: Endpoints): string[] {
  const methods: string[] = [...endpoints.keys()];
  if (endpoints.has('GET')) methods.splice(1, 0, 'HEAD');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return methods.sort((a, b) => order.indexOf(a) - order.indexOf(b));
}
