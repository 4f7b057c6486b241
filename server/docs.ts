// The API's own descriptions, built once at startup from the manifest the gateway serves: the
// OpenAPI 3.1 document, the RAML 1.0 document and an interactive reference page (Scalar, served locally).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** Where the build puts Scalar's browser bundle, relative to this module (scripts/copy-assets.mjs). */
export const SCALAR_ASSET = 'assets/scalar-api-reference.js';

/**
 * Scalar's browser bundle, pinned by package-lock.json: beside the built module (dist/, where production
 * installs have no devDependencies), else from node_modules; undefined when neither has it.
 */
function scalarBundle(): string | undefined {
  const built = join(dirname(fileURLToPath(import.meta.url)), SCALAR_ASSET);
  if (existsSync(built)) return readFileSync(built, 'utf8');
  try {
    const main = fileURLToPath(import.meta.resolve('@scalar/api-reference'));
    return readFileSync(join(dirname(main), 'browser/standalone.js'), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Scalar's hosted-product chrome off: a self-hosted, offline page offers no AI agent ("Ask AI"), no MCP server
 * ("Generate MCP") and no developer toolbar ("Deploy", "Share"), and sends no telemetry.
 */
export const SELF_HOSTED = { agent: { disabled: true }, mcp: { disabled: true }, showDeveloperTools: 'never', telemetry: false } as const;

/** Whether `segment` below the base path is free for a document: a collection of the same name keeps its route. */
const freeSegment = (manifest: Manifest, segment: string) => !Object.values(manifest.resources).some((r) => r.collection === segment);

/** The reference page's path, `{basePath}/docs`, or undefined where a collection named `docs` holds it. */
export const docsPagePath = (manifest: Manifest): string | undefined =>
  (freeSegment(manifest, 'docs') ? `${manifest.api.basePath}/docs` : undefined);

/** GET {basePath} (links to the documents below and to every collection), {basePath}/openapi.json, {basePath}/api.raml and {basePath}/docs (the reference page). */
export function docsRoutes(manifest: Manifest): Hono {
  const { basePath, title } = manifest.api;
  const docs = apiDocuments(manifest);
  const app = new Hono();
  const free = (segment: string) => freeSegment(manifest, segment);
  if (free('openapi.json')) app.get(`${basePath}/openapi.json`, (c) => c.body(docs.openapi, 200, { 'Content-Type': 'application/json' }));
  if (free('api.raml')) app.get(`${basePath}/api.raml`, (c) => c.body(docs.raml, 200, { 'Content-Type': 'application/raml+yaml; charset=utf-8' }));
  const bundle = docsPagePath(manifest) !== undefined ? scalarBundle() : undefined;
  const index = JSON.stringify({
    title, version: manifest.api.version,
    links: {
      ...(free('openapi.json') ? { openapi: `${basePath}/openapi.json` } : {}),
      ...(free('api.raml') ? { raml: `${basePath}/api.raml` } : {}),
      ...(bundle !== undefined ? { docs: `${basePath}/docs` } : {}),
      collections: Object.fromEntries(Object.values(manifest.resources).map((r) => [r.collection, `${basePath}/${r.collection}`])),
    },
  });
  // The base address a person tries first answers with where everything is.
  app.get(basePath, (c) => c.body(index, 200, { 'Content-Type': 'application/json' }));
  if (bundle !== undefined) {
    // The page and its script come from the gateway: it works without internet, and the version is the lockfile's.
    app.get(`${basePath}/docs/scalar.js`, (c) => c.body(bundle, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' }));
    // Scalar writes the page title into <title> as it is: the model's title is escaped here.
    app.get(`${basePath}/docs`, Scalar({
      url: `${basePath}/openapi.json`, pageTitle: escapeHtml(`${title} reference`), cdn: `${basePath}/docs/scalar.js`, withDefaultFonts: false,
      ...SELF_HOSTED,
    }));
  }
  return app;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
