// Record history in the documents (design 9): GET …/{id}/history and …/{id}/history/{version} below every prefix
// of an entity that keeps history, the version entry's schema, a page of them and one of them. RAML follows.
import type { Manifest, ResourceManifest } from '../manifest/types.ts';
import { paramRef, ref, type Schema } from './common.ts';
import { keyParameter, operation, success } from './operations.ts';
import { pathPrefixes } from './paths.ts';
import { listOf, single } from './schemas.ts';
import { status, verb } from './verbs.ts';

export interface HistoryParts { paths: Record<string, Schema>; schemas: Record<string, Schema> }

const ACTIONS = ['created', 'updated', 'deleted', 'restored'];

/** The history's paths and schemas; none for an entity that keeps no history. */
export function historyParts(manifest: Manifest, r: ResourceManifest): HistoryParts {
  if (!r.functions.history) return { paths: {}, schemas: {} };
  const e = r.entity, entry = `${e}Version`;
  const schemas: Record<string, Schema> = {
    [entry]: {
      type: 'object',
      description: `One version of a ${e}: the write that made it and the record as that write left it (before it, for deleted).`,
      properties: {
        version: { type: 'integer', minimum: 1, description: `The ${r.versionProperty ?? 'Version'} this write left.` },
        etag: { type: 'string', description: 'The ETag value of that version (without quotes).' },
        action: { type: 'string', enum: ACTIONS, description: 'A sub-resource PUT is its owner\'s update; a soft delete keeps the version.' },
        at: { type: 'string', format: 'date-time', description: 'When the writing transaction began.' },
        by: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The writer\'s `sub`; null for an anonymous write.' },
        data: { allOf: [ref(e)], description: 'The record as a GET shows it; a file no record holds any more comes without a link (no url).' },
      },
      required: ['version', 'etag', 'action', 'at', 'by', 'data'],
    },
    [`${e}History`]: listOf(entry),
    [`${entry}Single`]: single(entry),
  };
  const paths: Record<string, Schema> = {};
  for (const p of pathPrefixes(manifest, r)) {
    const base = `${p.path}/${r.collection}/{id}/history`;
    const item = [...p.params, keyParameter('id', r.properties[r.primaryKey], `The ${e}'s ${r.primaryKey}.`)];
    const readable = `Readable by whoever may read the ${e} now (else the 404 or 403 its GET answers); 404 while it is soft-deleted.`;
    paths[base] = {
      [verb('history')]: operation({ summary: `List the versions of a ${e}`, operationId: `history${e}${p.suffix}`, tag: e,
        parameters: [...item, paramRef('Page'), paramRef('PerPage')],
        description: `Newest first, from the change log: every create, update, soft delete and restore of the record since it was last created. ${readable}`,
        success: { [status('history')]: success(`A page of the ${e}'s versions.`, `${e}History`) } }),
    };
    paths[`${base}/{version}`] = {
      [verb('historyVersion')]: operation({ summary: `Read one version of a ${e}`, operationId: `historyVersion${e}${p.suffix}`, tag: e,
        parameters: [...item, { name: 'version', in: 'path', required: true, description: 'The version number.', schema: { type: 'integer', minimum: 1 } }],
        description: `The write that made that version; 404 when the record has no such version or it is no longer kept. ${readable} `
          + 'Going back: PUT its `data` (without read-only members and the version) with If-Match of the current ETag.',
        success: { [status('historyVersion')]: success(`The version.`, `${entry}Single`) } }),
    };
  }
  return { paths, schemas };
}
