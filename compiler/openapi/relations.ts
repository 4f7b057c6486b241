// Relation paths and schemas: manyToMany lists, link and unlink (edge properties in the body and in
// each linked record's `edge`), and oneToOne sub-resources read and replaced with the owner's ETag.
import { status, verb } from './verbs.ts';
import { EDGE_PROPERTY, type Manifest, type RelationManifest, type ResourceManifest } from '../manifest/types.ts';
import { paramRef, ref, type Schema } from './common.ts';
import { keyParameter, noContent, notModified, operation, pascal, preconditions, readPreconditions, success } from './operations.ts';
import { projectionParameters } from './query.ts';
import { pathPrefixes, type PathPrefix } from './paths.ts';
import { listOf, shape, single } from './schemas.ts';

export interface RelationParts {
  paths: Record<string, Schema>;
  schemas: Record<string, Schema>;
}

export function relationParts(manifest: Manifest, r: ResourceManifest, name: string, rel: RelationManifest): RelationParts {
  const parts = pathPrefixes(manifest, r).map((p) => relationAt(manifest, r, name, rel, p));
  return { schemas: parts[0]!.schemas, paths: Object.assign({}, ...parts.map((x) => x.paths)) };
}

/** The relation's paths below one prefix of its owner's collection (the top level, or a parent chain). */
function relationAt(manifest: Manifest, r: ResourceManifest, name: string, rel: RelationManifest, prefix: PathPrefix): RelationParts {
  const base = `${prefix.path}/${r.collection}/{id}/${name}`, e = r.entity, c = `${e}${pascal(name)}`, tag = e, op = (o: string) => `${o}${c}${prefix.suffix}`;
  const id = [...prefix.params, keyParameter('id', r.properties[r.primaryKey], `The ${e}'s ${r.primaryKey}.`)];
  if (rel.kind === 'oneToOne') {
    const projection = projectionParameters(rel.properties);
    return {
      schemas: {
        [c]: shape(rel.schemas.read, rel.properties, 'read'),
        // The PUT creates the sub-resource when first written: an immutable property is set there (and kept when
        // left out later), and what it leaves out takes its default, as a create's body says.
        [`${c}Replace`]: shape(rel.schemas.replace, rel.properties, 'create'),
        [`${c}Single`]: single(c),
      },
      paths: {
        [base]: {
          [verb('subRead')]: operation({ summary: `Read the ${name} of a ${e}`, operationId: op('read'), tag, parameters: [...id, ...projection, ...readPreconditions], errors: ['412'],
            description: 'Every property is null until the sub-resource is first written. ETag and Last-Modified are the owner\'s.',
            success: { [status('subRead')]: success(`The ${name}.`, `${c}Single`, ['ETag', 'LastModified']), ...notModified } }),
          [verb('subReplace')]: operation({ summary: `Replace the ${name} of a ${e}`, operationId: op('replace'), tag, parameters: [...id, ...preconditions, ...projection],
            description: 'Creates or replaces it; the preconditions compare the owner\'s ETag, and the write advances it.',
            body: { schema: `${c}Replace` }, errors: ['409', '412', '413', '415', '422'],
            success: { [status('subReplace')]: success('Replaced.', `${c}Single`, ['ETag']) } }),
        },
      },
    };
  }
  const target = manifest.resources[rel.target];
  const edgeProps = (rel.schemas.link as { properties: Record<string, Schema> }).properties;
  const targetParam = keyParameter('target_id', target?.properties[target.primaryKey], `Key of the linked ${rel.target}.`);
  const projection = target ? projectionParameters({ ...target.properties, edge: EDGE_PROPERTY }) : [];
  return {
    schemas: {
      [`${c}Edge`]: { type: 'object', properties: edgeProps, description: 'Edge properties of the link.' },
      [`${c}LinkBody`]: { ...(rel.schemas.link as Schema) },
      [`${c}Linked`]: { allOf: [ref(rel.target), { type: 'object', properties: { edge: ref(`${c}Edge`) } }] }, // edge not required: include/exclude may leave it out
      [`${c}LinkedList`]: listOf(`${c}Linked`),
      [`${c}Link`]: {
        type: 'object', properties: { [rel.ownerColumn]: { type: 'string' }, [rel.targetColumn]: { type: 'string' }, ...edgeProps },
        required: [rel.ownerColumn, rel.targetColumn], description: 'The link: both keys (as text) and the edge properties.',
      },
      [`${c}LinkSingle`]: single(`${c}Link`),
    },
    paths: {
      [base]: {
        [verb('relationList')]: operation({ summary: `List the ${name} of a ${e}`, operationId: op('list'), tag,
          parameters: [...id, paramRef('Page'), paramRef('PerPage'), ...projection],
          success: { [status('relationList')]: success(`Linked ${rel.target} records, each with its edge properties.`, `${c}LinkedList`) } }),
      },
      [`${base}/{target_id}`]: {
        [verb('link')]: operation({ summary: `Link a ${rel.target} to a ${e}`, operationId: op('link'), tag, parameters: [...id, targetParam, paramRef('IfMatch')],
          description: 'A link has no ETag: `If-Match: *` holds only when the link exists (then only its edge is updated); `*` on no link, and any entity-tag, is 412.',
          body: { schema: `${c}LinkBody`, required: false }, errors: ['409', '412', '413', '415', '422'],
          success: { '200': success('The edge was updated.', `${c}LinkSingle`), [status('link')]: success('Linked.', `${c}LinkSingle`) } }),
        [verb('unlink')]: operation({ summary: `Unlink a ${rel.target} from a ${e}`, operationId: op('unlink'), tag, parameters: [...id, targetParam, paramRef('IfMatch')],
          description: 'A link has no ETag: `If-Match: *` holds when the link exists, an entity-tag on one is 412; no link is 404 whatever If-Match says.', errors: ['412'],
          success: noContent('Unlinked (404 when not linked)') }),
      },
    },
  };
}
