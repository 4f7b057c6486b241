// A request line of the access table (`GET /projects/<id>/posts?status=draft`) as the api.* call the
// gateway would make: function name and arguments (manifest protocol), and how a success answers.
import type { FilterNode, Manifest, ResourceManifest } from '../../../compiler/manifest/types.ts';

export interface Route {
  fn: string;
  args: Record<string, unknown>;
  /** Lists answer {data, meta}; rowKey names the key of their rows. */
  list: boolean;
  rowKey?: string;
  /** HTTP status of a success: 201 create, 204 delete/unlink, 201/200 link (new/updated edge), else 200. */
  success: (result: Record<string, unknown>) => number;
}

const ok = () => 200;

/** Replaces `@name` after a `/` or `=` in a request line, or as a whole string value, with ids[name]. */
export function resolver(ids: Record<string, string>) {
  const id = (name: string) => {
    const v = ids[name];
    if (v === undefined) throw new Error(`no seeded key @${name}`);
    return v;
  };
  const line = (s: string) => s.replace(/([/=])@([A-Za-z0-9_]+)/g, (_m, pre: string, name: string) => pre + id(name));
  const deep = <T>(v: T): T => {
    if (typeof v === 'string') return (/^@[A-Za-z0-9_]+$/.test(v) ? id(v.slice(1)) : v) as T;
    if (Array.isArray(v)) return v.map(deep) as T;
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)])) as T;
    return v;
  };
  return { line, deep };
}

export function splitRequest(req: string): { method: string; path: string; query: URLSearchParams } {
  const [method, target] = req.split(' ') as [string, string];
  const url = new URL(target, 'http://x');
  return { method, path: url.pathname, query: url.searchParams };
}

/** The api.* call for a (resolved) request line and body. */
export function route(manifest: Manifest, req: string, body?: Record<string, unknown>): Route {
  const { method, path, query } = splitRequest(req);
  const seg = path.split('/').filter(Boolean).map(decodeURIComponent);
  const byCollection = (c: string) => {
    const r = Object.values(manifest.resources).find((x) => x.collection === c);
    if (!r) throw new Error(`no collection ${c}`);
    return r;
  };
  const filter = (): FilterNode | undefined => {
    const nodes: FilterNode[] = [...query].map(([field, value]) => ({ field, op: 'eq', value }));
    return nodes.length === 0 ? undefined : nodes.length === 1 ? nodes[0] : { and: nodes };
  };
  const listOf = (r: ResourceManifest, fn: string, extra: Record<string, unknown> = {}): Route => {
    const f = fn === r.functions.search ? searchFilter(body) : filter();
    return { fn, args: { page: 1, per_page: 100, ...extra, ...(f ? { filter: f } : {}) }, list: true, rowKey: r.primaryKey, success: ok };
  };
  const single = (r: ResourceManifest, id: string, parent?: string): Route => {
    const args = { id, ...(parent ? { parent } : {}) };
    switch (method) {
      case 'GET': return { fn: r.functions.read, args, list: false, success: ok };
      case 'PATCH': return { fn: r.functions.patch, args: { ...args, body }, list: false, success: ok };
      case 'PUT': return { fn: r.functions.replace, args: { ...args, body }, list: false, success: ok };
      case 'DELETE': return { fn: r.functions.delete, args, list: false, success: () => 204 };
    }
    throw new Error(`unsupported ${req}`);
  };
  const collection = (r: ResourceManifest, parent?: string): Route => {
    const p = parent ? { parent } : {};
    if (method === 'GET') return listOf(r, r.functions.list, p);
    if (method === 'POST') return { fn: r.functions.create, args: { ...p, body }, list: false, success: () => 201 };
    throw new Error(`unsupported ${req}`);
  };

  const r = byCollection(seg[0]!);
  if (seg.length === 1) return collection(r);
  if (seg.length === 2 && seg[1] === 'search' && method === 'POST') return listOf(r, r.functions.search);
  if (seg.length === 2) return single(r, seg[1]!);
  const rel = r.relations[seg[2]!];
  if (seg.length === 3 && seg[2] === 'restore' && method === 'POST') return { fn: r.functions.restore!, args: { id: seg[1] }, list: false, success: ok };
  if (rel?.kind === 'oneToOne' && seg.length === 3) {
    return method === 'GET'
      ? { fn: rel.functions.read, args: { id: seg[1] }, list: false, success: ok }
      : { fn: rel.functions.replace, args: { id: seg[1], body }, list: false, success: ok };
  }
  if (rel?.kind === 'manyToMany') {
    const target = manifest.resources[rel.target]!;
    if (seg.length === 3) return { fn: rel.functions.list, args: { id: seg[1], page: 1, per_page: 100 }, list: true, rowKey: target.primaryKey, success: ok };
    if (method === 'PUT') return { fn: rel.functions.link, args: { id: seg[1], target: seg[3], body: body ?? {} }, list: false, success: (x) => (x.created ? 201 : 200) };
    return { fn: rel.functions.unlink, args: { id: seg[1], target: seg[3] }, list: false, success: () => 204 };
  }
  const child = byCollection(seg[2]!);
  return seg.length === 3 ? collection(child, seg[1]) : single(child, seg[3]!, seg[1]);
}

/** A search body's `where` ({property: {op: value}}, ANDed) as a filter tree. */
function searchFilter(body: Record<string, unknown> | undefined): FilterNode | undefined {
  const where = (body?.where ?? {}) as Record<string, Record<string, unknown>>;
  const nodes: FilterNode[] = Object.entries(where).flatMap(([field, ops]) =>
    Object.entries(ops).map(([op, value]) => ({ field, op: op as 'eq', value })));
  return nodes.length === 0 ? undefined : nodes.length === 1 ? nodes[0] : { and: nodes };
}
