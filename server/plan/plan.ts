// Turns a matched endpoint plus the parsed request (server/request/parse.ts) into the one api.* call: function name and
// jsonb arguments per the manifest protocol, and the projection for the response. Pure: no I/O, nothing awaited.
import type { RequestLimits } from '../request/limits.ts';
import { EDGE_PROPERTY, type Manifest, type PropertyManifest, type ResourceManifest } from '../../compiler/manifest/types.ts';
import type { References } from '../request/filter.ts';
import { ApiError, badRequest, locate } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';
import { parseListQuery } from '../request/list.ts';
import { parsePaging, parseProjection, type Projection } from '../request/listing.ts';
import type { ParsedRequest } from '../request/parse.ts';
import { take } from '../request/parsed.ts';
import { keyed, onlyReads, OPERATIONS } from '../../compiler/query/operations.ts';
import { bodySchemaOf, documentSchema } from '../../compiler/manifest/schemas.ts';
import { parseSearch } from '../request/search.ts';
import type { Action, Endpoint } from './routes.ts';
import type { Call } from './call.ts';
import type { Identity } from '../request/auth.ts';
import type { Recipient } from '../request/recipient.ts';
import { mergedDocuments, type BodyValidators, type MergedCheck } from './validate.ts';
import { wireOf, type Wire } from '../request/wire.ts';
import { planEmbeds } from './embeds.ts';

export interface Plan {
  endpoint: Endpoint;
  fn: string;
  args: Record<string, unknown>;
  projection: Projection;
  /** PATCH of JSON properties with a schema: the merged documents are checked before commit. */
  merged?: MergedCheck;
  /** Bulk create (a JSON array body): the arguments of each record's call, all run in one statement. */
  each?: Array<Record<string, unknown>>;
  /** Wire names and columns of the bodies the endpoint writes (web.name); rows come out of SQL with wire names. */
  wire: Wire;
}

export interface Planner {
  manifest: Manifest;
  validators: BodyValidators;
  limits: RequestLimits;
}



export function planRequest(p: Planner, e: Endpoint, req: ParsedRequest): Plan {
  const { query } = req;
  const r = e.resource, rel = e.relation?.def;
  // A nested path: the parent's key, and the keys above it outermost first (each checked in SQL).
  const parent = e.parent ? { parent: e.parent.id, ...(e.ancestors ? { ancestors: e.ancestors.map((a) => a.id) } : {}) } : {};
  const { props, schemaOf, embeds, references, wire } = shapeOf(p.manifest, e);
  const projection = e.action === 'list' || e.action === 'search' ? {} : parseProjection(query.reserved.include, query.reserved.exclude, props, embeds);
  if (rel?.kind === 'manyToMany') checkEdgePaths(projection, rel.edge);
  const plan = (fn: string | undefined, args: Record<string, unknown>, proj = projection): Plan => {
    if (!fn) throw new Error(`the manifest names no function for ${r.entity} ${e.action}`);
    const asked = proj.embed?.length ? planEmbeds(p.manifest, r, proj.embed, p.limits.maxEmbedDepth) : undefined;
    return { endpoint: e, fn, projection: proj, wire, args: asked ? { ...args, embed: asked, embed_limit: p.limits.maxEmbedRows } : args };
  };
  /** The request body as the operations table says: required, optional (absent: {}) or none. */
  const body = () => {
    const required = OPERATIONS[e.action].body === 'required';
    const b = take(req.body) as Record<string, unknown> | undefined;
    if (!b && required) throw badRequest('This request needs a JSON object body.');
    return b ?? {};
  };
  const preconditions = take(req.preconditions);
  // A link has no modification time: If-Match alone applies to it (compiler/sql/engine/relations.ts).
  const ifMatch = preconditions.if_match ? { if_match: preconditions.if_match } : {};

  switch (e.action) {
    case 'list': {
      const { projection: proj, ...list } = parseListQuery(query, props, schemaOf, embeds, references);
      return plan(r.functions.list, { ...list, ...parent }, proj);
    }
    case 'search': {
      const { projection: proj, ...search } = parseSearch(body(), props, schemaOf, p.limits.maxFilterNodes, embeds, references);
      return plan(r.functions.search, { ...search, ...parent }, proj);
    }
    // A record the caller may not read is answered as its refusal, not raised (compiler/sql/engine/records.ts): see dispatch.ts.
    case 'read': return plan(r.functions.read, { id: e.id, ...parent, ...preconditions, answer_refusal: true });
    case 'create': case 'bulkCreate': {
      const b = take(req.body);
      if (e.action === 'bulkCreate' && !Array.isArray(b)) throw badRequest('This request needs a JSON array of objects, one for each record to create.');
      if (!b) throw badRequest('This request needs a JSON object body, or an array of them to create several records.');
      const rule = { props: r.properties, ...(e.parent ? { supplied: r.parent?.property } : {}) };
      if (!Array.isArray(b)) {
        p.validators.check(`${r.entity}.create`, b, rule);
        return plan(r.functions.create, { body: wire.toColumns(b), ...parent });
      }
      checkBulkSize(b.length, p.limits.maxBatchOperations);
      b.forEach((one, index) => {
        try {
          p.validators.check(`${r.entity}.create`, one, rule);
        } catch (err) {
          throw err instanceof ApiError ? locate(err, { index }) : err;
        }
      });
      return { ...plan(r.functions.create, {}), each: b.map((one) => ({ body: wire.toColumns(one), ...parent })) };
    }
    case 'replace': case 'patch': {
      const b = body();
      p.validators.check(`${r.entity}.${e.action}`, b, { props: r.properties, mergePatch: e.action === 'patch' });
      const merged = e.action === 'patch' ? mergedDocuments(p.validators).merged(r.entity, b, r.properties) : undefined;
      const planned = plan(r.functions[e.action], { id: e.id, body: wire.toColumns(b), ...parent, ...preconditions });
      return merged ? { ...planned, merged } : planned;
    }
    case 'delete': {
      const permanent = query.reserved.permanent;
      if (permanent !== undefined && permanent !== 'true' && permanent !== 'false') throw badRequest('"permanent" must be true or false.');
      return plan(r.functions.delete, { id: e.id, ...parent, ...(permanent ? { permanent: permanent === 'true' } : {}), ...preconditions });
    }
    case 'restore': return plan(r.functions.restore, { id: e.id, ...parent, ...preconditions });
    case 'relationList': return plan(rel?.kind === 'manyToMany' ? rel.functions.list : undefined, { id: e.id, ...parent, ...parsePaging({ page: query.reserved.page, per_page: query.reserved.per_page }) });
    case 'link': {
      if (rel?.kind !== 'manyToMany') break;
      const b = body();
      p.validators.check(`${r.entity}.${e.relation!.name}`, b, { names: Object.keys(rel.edge) });
      return plan(rel.functions.link, { id: e.id, target: e.target, body: b, ...parent, ...ifMatch });
    }
    case 'unlink': return plan(rel?.kind === 'manyToMany' ? rel.functions.unlink : undefined, { id: e.id, target: e.target, ...parent, ...ifMatch });
    case 'history': return plan(r.functions.history, { id: e.id, ...parent, ...parsePaging({ page: query.reserved.page, per_page: query.reserved.per_page }) });
    case 'historyVersion': return plan(r.functions.history, { id: e.id, version: e.target, ...parent });
    case 'subRead': return plan(rel?.kind === 'oneToOne' ? rel.functions.read : undefined, { id: e.id, ...parent, ...preconditions });
    case 'subReplace': {
      if (rel?.kind !== 'oneToOne') break;
      const b = body();
      p.validators.check(`${r.entity}.${e.relation!.name}`, b, { props: rel.properties });
      return plan(rel.functions.replace, { id: e.id, body: wire.toColumns(b), ...parent, ...preconditions });
    }
  }
  throw new Error(`no plan for ${e.action} on ${r.entity}`);
}

/** The actions whose answer is the function's `data` as it is, unless something on the way reads or keeps it. */
const DATA_AS_SENT = new Set<Action>(['list', 'search', 'read', 'subRead', 'create', 'replace', 'patch', 'restore', 'subReplace']);

/**
 * The database call of a plan, as `identity` from `ip`. `kept`: its answer is kept for an Idempotency-Key (as
 * parsed JSON), so its data is parsed too.
 */
export function callOf(plan: Plan, identity: Identity, ip: string | null, kept = false, recipient?: Recipient): Call {
  const { action } = plan.endpoint, { include, exclude } = plan.projection;
  // A page's rows, or a record read or written, go out as SQL wrote them unless a projection picks from them, a
  // merged document is checked in them (server/plan/validate.ts), or the answer is kept.
  const dataAsSent = DATA_AS_SENT.has(action) && !include && !exclude && !plan.merged && !plan.each && !kept;
  return {
    identity, ip, fn: plan.fn, args: plan.args, ...(plan.each ? { each: plan.each } : {}), ...(dataAsSent ? { dataAsSent } : {}),
    ...(keyed(action) && !plan.each ? { shares: onlyReads(action) ? 'read' : 'write' } : {}),
    // A read of many rows may run long: it stops when its client hangs up (a read by key is too short to bother).
    ...(recipient && onlyReads(action) && !keyed(action) ? { recipient } : {}),
  };
}

/** A bulk create holds at least one record and at most MAX_BATCH_OPERATIONS (413 past it, as a batch). */
function checkBulkSize(n: number, max: number): void {
  if (n === 0) throw badRequest('The request body is an empty array: a bulk create needs at least one record.');
  if (n > max) throw new ApiError('payloadTooLarge', `The request body holds ${n} records; at most ${max} are created in one request (${LIMITS.maxBatchOperations.env}).`);
}

/** What an endpoint's requests are read against, the same for every request to it. */
interface Shape {
  /** The properties a response (and so a projection, filter or sort) of this endpoint can show. */
  props: Record<string, PropertyManifest>;
  schemaOf: (property: string) => unknown;
  /** Embeds (include=project) on the entity's own reads; elsewhere an embed's name is an unknown property. */
  embeds: string[];
  references: References;
  wire: Wire;
}

/** Shapes by resource, then action and relation: the manifest lives as long as the gateway, so each is made once. */
const shapes = new WeakMap<ResourceManifest, Map<string, Shape>>();

function shapeOf(manifest: Manifest, e: Endpoint): Shape {
  let byAction = shapes.get(e.resource);
  if (!byAction) shapes.set(e.resource, byAction = new Map());
  const key = `${e.action} ${e.relation?.name ?? ''}`;
  let shape = byAction.get(key);
  if (!shape) {
    const props = readableProps(manifest, e);
    const embeds = !e.relation && ['list', 'search', 'read'].includes(e.action) ? Object.keys(e.resource.embeds ?? {}) : [];
    shape = { props, schemaOf: createSchemaOf(e.resource), embeds, references: referencesOf(manifest, e), wire: wireOf(props) };
    byAction.set(key, shape);
  }
  return shape;
}

/** The records an entity's own list and search may filter through (`project.name`): its reference embeds. */
function referencesOf(manifest: Manifest, e: Endpoint): References {
  if (e.relation) return {};
  const out: References = {};
  for (const [name, x] of Object.entries(e.resource.embeds ?? {})) {
    const target = x.kind === 'reference' ? manifest.resources[x.target] : undefined;
    if (target) out[name] = { props: target.properties, schemaOf: createSchemaOf(target) };
  }
  return out;
}

/** A property's document schema (what a JSON path's type is read from), past its nullable wrapper. */
const createSchemaOf = (r: ResourceManifest) => (name: string) => documentSchema((bodySchemaOf(r.schemas, 'create') as { properties?: Record<string, unknown> }).properties?.[name]);

/** `edge` is typed JSON for the projection's parser; its paths may name only the relation's edge properties. */
function checkEdgePaths(projection: Projection, edge: Record<string, unknown>): void {
  for (const path of [...projection.include ?? [], ...projection.exclude ?? []]) {
    const [top, name, ...deeper] = path.split('.');
    if (top !== 'edge' || name === undefined) continue;
    if (!Object.hasOwn(edge, name) || deeper.length) {
      const known = Object.keys(edge);
      throw badRequest(`"${path}" names no edge property of this relation${known.length ? ` (it has ${known.join(', ')})` : ' (it has none)'}.`);
    }
  }
}

function readableProps(manifest: Manifest, e: Endpoint): Record<string, PropertyManifest> {
  const rel = e.relation?.def;
  if (rel?.kind === 'oneToOne') return rel.properties;
  if (rel?.kind === 'manyToMany') return { ...manifest.resources[rel.target]?.properties, edge: EDGE_PROPERTY };
  return e.resource.properties;
}
