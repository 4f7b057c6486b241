// The RAML 1.0 document of an API, with the same content as its OpenAPI document: it is derived from
// that document (types from components.schemas and requestBodies, resources from paths), so the two cannot drift.
import { stringify } from 'yaml';
import { ANNOTATION_TYPES, TypeConverter } from './types.ts';
import { resourceTree, traits } from './resources.ts';
import { LIST_BODY_SUFFIX } from '../openapi/bodies.ts';
import { listBodyItem } from '../openapi/operations.ts';

type Schema = Record<string, unknown>;

export function buildRaml(openapi: Schema): string {
  const info = openapi.info as { title: string; version: string; description?: string };
  const server = (openapi.servers as Array<{ url: string }>)[0]!.url;
  const converter = new TypeConverter();
  const types: Record<string, unknown> = {};
  const { schemas, requestBodies = {} } = openapi.components as { schemas: Record<string, Schema>; requestBodies?: Record<string, Schema> };
  for (const [name, s] of Object.entries(schemas)) types[name] = converter.convert(s, name);
  // Request bodies with their schema inline in components.requestBodies are named types too.
  for (const [name, b] of Object.entries(requestBodies)) {
    const schema = (b.content as Record<string, { schema: Schema }>)['application/json']!.schema;
    const item = listBodyItem(schema); // a bulk create's body: a list of its object's type (the single create's body)
    const object = name.slice(0, -LIST_BODY_SUFFIX.length);
    if (item && name.endsWith(LIST_BODY_SUFFIX) && object in requestBodies) {
      types[name] = { type: 'array', items: object, minItems: 1, description: schema.description };
    } else if (!schema.$ref) types[name] = converter.convert(schema, name);
  }
  const responseTraits: Record<string, unknown> = {};
  const resources = resourceTree(openapi, converter, responseTraits);
  const doc = {
    title: info.title,
    version: info.version,
    baseUri: server,
    ...(info.description ? { description: info.description } : {}),
    mediaType: 'application/json',
    protocols: ['HTTP', 'HTTPS'],
    securitySchemes: {
      bearer: {
        type: 'x-bearer',
        description: 'Authorization: Bearer <JWT> (HS256). Without it the caller is anonymous.',
        describedBy: {
          headers: { Authorization: { type: 'string', required: false, description: 'Bearer <JWT>' } },
          responses: new Map([[401, { description: 'A bad, expired or unsigned token.', body: { 'application/problem+json': { type: 'Problem' } } }]]),
        },
      },
    },
    securedBy: ['bearer', null],
    annotationTypes: ANNOTATION_TYPES,
    traits: { ...traits(openapi, converter), ...responseTraits },
    types: { ...types, ...converter.helpers },
    ...resources,
  };
  return `#%RAML 1.0\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
