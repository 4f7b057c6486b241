// The API's own descriptions, built once at startup from the manifest the gateway serves: the
// OpenAPI 3.1 document, the RAML 1.0 document and an interactive reference page (Scalar).
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import type { Manifest } from '../compiler/manifest/types.ts';
import { buildOpenApi } from '../compiler/openapi/document.ts';
import { buildRaml } from '../compiler/raml/build.ts';

export interface ApiDocuments {
  openapi: string;
  raml: string;
}

export function apiDocuments(manifest: Manifest): ApiDocuments {
  const openapi = buildOpenApi(manifest);
  return { openapi: JSON.stringify(openapi), raml: buildRaml(openapi) };
}

/** GET {basePath}/openapi.json, {basePath}/api.raml and {basePath}/docs (the reference page). */
export function docsRoutes(manifest: Manifest): Hono {
  const { basePath, title } = manifest.api;
  const docs = apiDocuments(manifest);
  const app = new Hono();
  // A collection of the same name keeps its route: the documents give way.
  const free = (segment: string) => !Object.values(manifest.resources).some((r) => r.collection === segment);
  if (free('openapi.json')) app.get(`${basePath}/openapi.json`, (c) => c.body(docs.openapi, 200, { 'Content-Type': 'application/json' }));
  if (free('api.raml')) app.get(`${basePath}/api.raml`, (c) => c.body(docs.raml, 200, { 'Content-Type': 'application/raml+yaml; charset=utf-8' }));
  if (free('docs')) app.get(`${basePath}/docs`, Scalar({ url: `${basePath}/openapi.json`, pageTitle: `${title} reference` }));
  return app;
}
