// The JSON body of a webhook POST (docs/events.md, "Webhooks"), built from a delivery's copy of its log row: the record image
// as the API shows a record (wire names, no writeOnly columns or system columns, files without their storage place).
import type { Manifest, PropertyManifest } from '../../compiler/manifest/types.ts';

/** A claimed delivery: its copy of the log row (lib.webhook_claim). */
export interface Delivery {
  id: string;
  webhook: string;
  change_id: string;
  entity: string;
  table_name: string;
  record_key: string;
  action: string;
  etag: string | null;
  image: Record<string, unknown>;
  sub: string | null;
  at: Date;
  attempts: number;
  retry_from: Date;
}

export interface WebhookPayload {
  /** The change's id in the log (also the webhook-id header): the same on every attempt, so receivers can drop repeats. */
  id: string;
  /** `<collection>.<action>`, e.g. posts.updated. */
  type: string;
  collection: string;
  /** The record's key (of a link: the owning record's). */
  key: string;
  action: string;
  /** The ETag's value after the change (of a deleted record: before it), without the quotes of the header. */
  etag: string | null;
  at: string;
  /** The caller's `sub`, or null (an anonymous caller). */
  by: string | null;
  /** The record as the change left it; of a link, {relation, target, edge}; null when deleted or unlinked. */
  data: Record<string, unknown> | null;
  /** Of a deleted record or a removed link: what it was before. */
  previous?: Record<string, unknown>;
}

export function webhookPayload(manifest: Manifest, d: Delivery): WebhookPayload {
  const resource = manifest.resources[d.entity];
  if (!resource) throw new Error(`the manifest has no entity "${d.entity}"`);
  const relation = Object.entries(resource.relations).find(([, r]) => r.table === d.table_name);
  let shaped: Record<string, unknown>;
  if (d.table_name === resource.table) shaped = recordOf(resource.properties, d.image);
  else if (relation?.[1].kind === 'manyToMany') {
    const [name, r] = relation;
    shaped = { relation: name, target: d.image[r.targetColumn] ?? null, edge: Object.fromEntries(Object.keys(r.edge).map((k) => [k, d.image[k] ?? null])) };
  } else throw new Error(`the manifest has no table "${d.table_name}" for entity "${d.entity}"`);
  const gone = d.action === 'deleted' || d.action === 'unlinked';
  return {
    id: d.change_id,
    type: `${resource.collection}.${d.action}`,
    collection: resource.collection,
    key: d.record_key,
    action: d.action,
    etag: d.etag,
    at: d.at.toISOString(),
    by: d.sub,
    data: gone ? null : shaped,
    ...(gone ? { previous: shaped } : {}),
  };
}

/** The record's readable properties by their wire names, in the model's order; a file as {id, name, mime}. */
function recordOf(props: Record<string, PropertyManifest>, image: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [wire, p] of Object.entries(props)) {
    if (p.writeOnly) continue;
    const value = image[p.column ?? wire] ?? null;
    out[wire] = !p.file || !value || typeof value !== 'object' ? value
      : Array.isArray(value) ? value.map((b) => fileOf(b as Record<string, unknown>)) : fileOf(value as Record<string, unknown>);
  }
  return out;
}

/** A stored file block without its place in the storage: a receiver reads the record to get a signed link. */
const fileOf = (block: Record<string, unknown>) => ({ id: block.id, name: block.name, mime: block.mime });
