// The OpenAPI 3.1 document of an API, built from its manifest alone (what api.manifest() serves), so
// the gateway and `npm run spec` describe exactly the routes, bodies and responses the gateway has.
import type { Manifest } from '../manifest/types.ts';
import { commonComponents, type Schema } from './common.ts';
import { MAX_PER_PAGE } from '../query/paging.ts';
import { entityPaths } from './paths.ts';
import { searchSchema, whereSchema } from './query.ts';
import { hoistParameters } from './hoist.ts';
import { hoistRequestBodies } from './bodies.ts';
import { relationParts } from './relations.ts';
import { historyParts } from './history.ts';
import { entitySchemas } from './schemas.ts';
import { UPLOAD_PATH, uploadPath, uploadSchemas } from './upload.ts';
import { BATCH_PATH, batchPath, batchSchemas } from './batch.ts';
import { authPaths, authSchemas } from './auth.ts';

export function buildOpenApi(manifest: Manifest): Schema {
  const common = commonComponents() as { schemas: Record<string, Schema>; parameters: Record<string, Schema> } & Schema;
  const parameters: Record<string, Schema> = { ...common.parameters };
  const schemas: Record<string, Schema> = { ...common.schemas, ...uploadSchemas };
  const paths: Record<string, Schema> = {};
  const tags: Schema[] = [];
  for (const r of Object.values(manifest.resources)) {
    tags.push({ name: r.entity, description: r.description ?? `The ${r.collection} collection.` });
    Object.assign(schemas, entitySchemas(r), {
      [`${r.entity}Where`]: whereSchema(r.properties, `${r.entity}Where`),
      [`${r.entity}Search`]: searchSchema(r.properties, `${r.entity}Where`),
    });
    Object.assign(paths, entityPaths(manifest, r));
    const history = historyParts(manifest, r);
    Object.assign(schemas, history.schemas);
    Object.assign(paths, history.paths);
    for (const [name, rel] of Object.entries(r.relations)) {
      const parts = relationParts(manifest, r, name, rel);
      Object.assign(schemas, parts.schemas);
      Object.assign(paths, parts.paths);
    }
  }
  hoistParameters(paths, parameters);
  const requestBodies = hoistRequestBodies(paths, schemas);
  tags.push({ name: 'Files', description: 'Two-phase file upload (spec 4.1, 4.2).' });
  paths[UPLOAD_PATH] = uploadPath;
  if (!paths[BATCH_PATH]) { // a collection named "batch" keeps its route (server/app.ts)
    tags.push({ name: 'Batch', description: 'Several operations in one transaction, all or nothing.' });
    paths[BATCH_PATH] = batchPath;
    Object.assign(schemas, batchSchemas);
  }
  if (manifest.identity) {
    tags.push({ name: 'Identity', description: `Sign-in of the ${manifest.identity.entity} records (sign-up is their create).` });
    Object.assign(paths, authPaths(manifest));
    Object.assign(schemas, authSchemas);
  }
  const { api } = manifest;
  return {
    openapi: '3.1.0',
    info: { title: api.title, version: api.version, description: describe(manifest) },
    externalDocs: { url: api.docsUrl },
    servers: [{ url: api.basePath }],
    security: [{ bearerAuth: [] }, {}],
    tags,
    paths,
    components: { ...common, schemas, parameters, requestBodies },
  };
}

function describe(manifest: Manifest): string {
  return [
    manifest.api.description ?? '',
    'Generated from the model. Lists take filters `<property>[<operator>]=<value>` (dot paths reach into JSON properties), '
      + `\`sort\`, \`page\`, \`per_page\` (at most ${MAX_PER_PAGE}), \`after\`/\`before\` (cursors from meta.next/meta.prev), \`count\` (exact, estimated, none), `
      + '`include` and `exclude`; unknown names are 400, never ignored.',
    'Writes answer a strong ETag; PUT, PATCH, DELETE, restore and reads take If-Match / If-Unmodified-Since (412 on a mismatch), reads If-None-Match / If-Modified-Since (304). '
      + 'Every error is an RFC 9457 problem document (application/problem+json) with a `code`.',
    'Property names are the wire\'s: a property with a web `name` is called by it everywhere (its column keeps the model\'s name).',
  ].filter(Boolean).join('\n\n');
}
