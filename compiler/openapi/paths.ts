// The paths of one entity: its collection at the top level and, for children, nested under every chain
// of parent records (`/projects/{project_id}/posts/{post_id}/comments`), with every action the router routes.
import type { Manifest, ResourceManifest } from '../manifest/types.ts';
import type { Schema } from './common.ts';
import { changeStream, idempotent, keyParameter, noContent, notModified, operation, preconditions, readPreconditions, STREAM_DESCRIPTION, success } from './operations.ts';
import { paramRef } from './common.ts';
import { listParameters, projectionParameters } from './query.ts';
import { status, verb } from './verbs.ts';

export function entityPaths(manifest: Manifest, r: ResourceManifest): Record<string, Schema> {
  return Object.assign({}, ...pathPrefixes(manifest, r).map((p) => collectionPaths(r, `${p.path}/${r.collection}`, p.params, p.suffix)));
}

/** A way to reach a collection: under no parent (''), or under a chain of parent records, outermost first. */
export interface PathPrefix { path: string; params: Schema[]; suffix: string }

/** Every prefix of a collection: the top level and each chain of parents above it (the model has no cycles). */
export function pathPrefixes(manifest: Manifest, r: ResourceManifest): PathPrefix[] {
  const top: PathPrefix = { path: '', params: [], suffix: '' };
  const parent = r.parent ? manifest.resources[r.parent.entity] : undefined;
  if (!parent || !r.parent) return [top];
  return [top, ...pathPrefixes(manifest, parent).map((p) => {
    // A key parameter's name is the child's parent property; a name taken higher up gets the level's number.
    const taken = p.params.some((x) => x.name === r.parent!.property);
    const name = taken ? `${r.parent!.property}_${p.params.length + 1}` : r.parent!.property;
    const param = keyParameter(name, parent.properties[parent.primaryKey], `Key of the parent ${parent.entity}.`);
    return { path: `${p.path}/${parent.collection}/{${name}}`, params: [...p.params, param], suffix: `${p.suffix || 'In'}${parent.entity}` };
  })];
}

function collectionPaths(r: ResourceManifest, base: string, pathParams: Schema[], suffix: string): Record<string, Schema> {
  const e = r.entity, tag = e, nested = suffix !== '';
  const id = keyParameter('id', r.properties[r.primaryKey], `The ${e}'s ${r.primaryKey}.`);
  const item = [...pathParams, id];
  const projection = projectionParameters(r.properties);
  const where = nested ? ' of the parent' : '';
  const opId = (action: string) => `${action}${e}${suffix}`;
  const createBody = nested ? `${e}CreateNested` : `${e}Create`;
  const paths: Record<string, Schema> = {
    [base]: {
      [verb('list')]: operation({ summary: `List ${r.collection}${where}`, operationId: opId('list'), tag,
        parameters: [...pathParams, ...listParameters(r.properties), paramRef('LastEventId')], description: STREAM_DESCRIPTION,
        success: { [status('list')]: changeStream(success(`A page of ${r.collection}; an empty list when nothing matches.`, `${e}List`)) } }),
      [verb('create')]: operation({ summary: `Create a ${e}${nested ? ' under the parent' : ''}`, operationId: opId('create'), tag, parameters: [...pathParams, ...projection, ...idempotent],
        description: `An array body is taken as \`POST ${base}/bulk\` takes it, and answered the same way.`,
        body: { schema: createBody }, errors: ['409', '413', '415', '422'],
        success: { [status('create')]: success('Created: the record.', `${e}Single`, ['Location', 'ETag']) } }),
    },
    [`${base}/bulk`]: {
      [verb('bulkCreate')]: operation({ summary: `Create several ${r.collection}${nested ? ' under the parent' : ''}`, operationId: opId('bulkCreate'), tag,
        parameters: [...pathParams, ...projection, ...idempotent],
        description: 'Every record in one statement, all or nothing: the first element that fails is answered with its `index`, and nothing is written. No Location.',
        body: { schema: createBody, list: true }, errors: ['409', '413', '415', '422'],
        success: { [status('bulkCreate')]: success('Created: the records, in the order sent.', `${e}BulkCreated`) } }),
    },
    [`${base}/search`]: {
      [verb('search')]: operation({ summary: `Search ${r.collection}${where}`, operationId: opId('search'), tag, parameters: pathParams,
        body: { schema: `${e}Search`, required: false }, errors: ['413', '415'],
        success: { [status('search')]: success(`A page of matching ${r.collection}.`, `${e}List`) } }),
    },
    [`${base}/{id}`]: {
      [verb('read')]: operation({ summary: `Read a ${e}`, operationId: opId('read'), tag, parameters: [...item, ...projection, ...readPreconditions], errors: ['412'],
        success: { [status('read')]: success(`The ${e}.`, `${e}Single`, ['ETag', 'LastModified']), ...notModified } }),
      [verb('replace')]: operation({ summary: `Replace a ${e}`, operationId: opId('replace'), tag, parameters: [...item, ...preconditions, ...projection],
        description: 'Omitted writable properties go back to their default (or null).' + versionNote(r),
        body: { schema: `${e}Update` }, errors: ['409', '412', '413', '415', '422'],
        success: { [status('replace')]: success('Replaced.', `${e}Single`, ['ETag']) } }),
      [verb('patch')]: operation({ summary: `Update part of a ${e}`, operationId: opId('patch'), tag, parameters: [...item, ...preconditions, ...projection, ...idempotent],
        description: 'Only the given properties change; JSON properties are merged (RFC 7396).' + versionNote(r),
        body: { schema: `${e}Patch`, mergePatch: true }, errors: ['409', '412', '413', '415', '422'],
        success: { [status('patch')]: success('Updated.', `${e}Single`, ['ETag']) } }),
      [verb('delete')]: operation({ summary: `Delete a ${e}`, operationId: opId('delete'), tag, errors: ['409', '412'],
        parameters: [...item, ...preconditions, ...(r.softDelete ? [permanent] : [])],
        description: r.softDelete ? 'Soft delete (restore brings it back) unless permanent=true.' : undefined,
        success: noContent('Deleted') }),
    },
  };
  if (r.softDelete) {
    paths[`${base}/{id}/restore`] = {
      [verb('restore')]: operation({ summary: `Restore a soft-deleted ${e}`, operationId: opId('restore'), tag, parameters: [...item, ...preconditions, ...projection, ...idempotent],
        description: 'A record that is not deleted is answered as it is. If-Match and If-Unmodified-Since are judged on the record (412), deleted or not.',
        errors: ['409', '412', '422'],
        success: { [status('restore')]: success('Restored.', `${e}Single`, ['ETag']) } }),
    };
  }
  return paths;
}

const permanent = { name: 'permanent', in: 'query', required: false, schema: { type: 'boolean', default: false },
  description: 'true removes the row (also a soft-deleted one).' };

const versionNote = (r: ResourceManifest) => r.versionProperty
  ? ` A \`${r.versionProperty}\` in the body is an expected-version lock (409 when the record moved on), never the new value.` : '';
