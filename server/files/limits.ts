// What the manifest says about files: the file properties an endpoint writes or returns, the largest
// upload the model allows, and the one way MIME types are compared (lowercase, `; ` between parameters).
import type { Manifest, PropertyManifest, ResourceManifest } from '../../compiler/manifest/types.ts';
import type { EmbedTree } from '../plan/embeds.ts';
import type { Endpoint } from '../plan/routes.ts';

export type FileSpec = NonNullable<PropertyManifest['file']>;

/** Upload cap when a file property sets no maxSizeInBytes. */
export const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export function normalizeType(type: string): string {
  return type.trim().toLowerCase().split(';').map((p) => p.trim()).filter(Boolean).join('; ');
}

/** The media type without parameters (what allowedMimeTypes lists). */
export const essence = (type: string) => normalizeType(type).split(';')[0]!;

/**
 * The file properties of a property map, by column (`in`: bodies reach SQL in its names) or by wire name
 * (`out`: rows leave SQL in those), server/request/wire.ts.
 */
function filesOf(props: Record<string, PropertyManifest>, names: 'in' | 'out' = 'in'): Record<string, FileSpec> {
  const seen = found[names];
  let files = seen.get(props);
  if (!files) seen.set(props, files = Object.fromEntries(Object.entries(props).flatMap(([name, p]) => (p.file ? [[names === 'in' ? p.column ?? name : name, p.file]] : []))));
  return files;
}
/** filesOf by the manifest's property maps (they live as long as the gateway): worked out once each. */
const found = { in: new WeakMap<Record<string, PropertyManifest>, Record<string, FileSpec>>(), out: new WeakMap<Record<string, PropertyManifest>, Record<string, FileSpec>>() };

/** File properties in the body an endpoint writes (create, replace, patch, sub-resource PUT). */
export function writtenFiles(e: Endpoint): Record<string, FileSpec> {
  if (e.action === 'subReplace') return e.relation?.def.kind === 'oneToOne' ? filesOf(e.relation.def.properties) : {};
  return ['create', 'bulkCreate', 'replace', 'patch'].includes(e.action) ? filesOf(e.resource.properties) : {};
}

/** File properties in the rows an endpoint returns. */
export function returnedFiles(manifest: Manifest, e: Endpoint): Record<string, FileSpec> {
  const rel = e.relation?.def;
  if (e.action === 'link' || e.action === 'unlink' || e.action === 'delete') return {};
  if (rel?.kind === 'oneToOne') return filesOf(rel.properties, 'out');
  if (rel?.kind === 'manyToMany') return filesOf(manifest.resources[rel.target]?.properties ?? {}, 'out');
  return filesOf(e.resource.properties, 'out');
}

/** The file properties of returned rows by wire name, and those of each embedded level below them (`include`). */
export interface FileTree { files: Record<string, FileSpec>; below: Record<string, FileTree> }

/** The rows an endpoint returns, with the embeds a request asked for (`args.embed`), as a FileTree. */
export function returnedFileTree(manifest: Manifest, e: Endpoint, embed: EmbedTree | undefined): FileTree {
  // A record's history: each version entry holds the record in its `data` (a file no record holds any more comes
  // without its location from SQL, lib.held_file, so no link is signed for it).
  if (e.action === 'history' || e.action === 'historyVersion') {
    return { files: {}, below: { data: { files: filesOf(e.resource.properties, 'out'), below: {} } } };
  }
  return { files: returnedFiles(manifest, e), below: embed ? embeddedFiles(manifest, e.resource, embed) : {} };
}

/** Whether any level of the tree has a file property. */
export const holdsFiles = (tree: FileTree): boolean => hasAny(tree.files) || Object.values(tree.below).some(holdsFiles);

/** Whether a map of file properties names any (without making the list of its keys). */
export function hasAny(files: Record<string, FileSpec>): boolean {
  for (const _ in files) return true;
  return false;
}

function embeddedFiles(manifest: Manifest, r: ResourceManifest, embed: EmbedTree): Record<string, FileTree> {
  const below: Record<string, FileTree> = {};
  for (const [name, deeper] of Object.entries(embed)) {
    const def = r.embeds?.[name];
    if (!def) continue;
    if (def.kind === 'oneToOne') {
      const rel = r.relations[def.relation];
      below[name] = { files: rel?.kind === 'oneToOne' ? filesOf(rel.properties, 'out') : {}, below: {} };
      continue;
    }
    const target = manifest.resources[def.target];
    if (target) below[name] = { files: filesOf(target.properties, 'out'), below: embeddedFiles(manifest, target, deeper) };
  }
  return below;
}

/** Every file property of the model. */
export function allFiles(manifest: Manifest): FileSpec[] {
  return Object.values(manifest.resources).flatMap((r) => [
    ...Object.values(filesOf(r.properties)),
    ...Object.values(r.relations).flatMap((rel) => (rel.kind === 'oneToOne' ? Object.values(filesOf(rel.properties)) : [])),
  ]);
}

/** The largest file any property accepts: the cap of a gateway-served upload. */
export function maxUploadBytes(manifest: Manifest): number {
  const limits = allFiles(manifest).map((f) => f.maxSizeInBytes ?? DEFAULT_MAX_UPLOAD_BYTES);
  return limits.length ? Math.max(...limits) : DEFAULT_MAX_UPLOAD_BYTES;
}
