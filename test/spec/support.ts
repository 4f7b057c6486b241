// Shared by the specification suites: the OpenAPI document of an example model (built without a
// database), and ajv (draft 2020-12, OpenAPI 3.1's dialect) checking values against its schemas.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { compileModel } from '../../compiler/index.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { buildOpenApi } from '../../compiler/openapi/document.ts';
import { listBodyItem } from '../../compiler/openapi/operations.ts';
import type { Reply } from '../e2e/support/http.ts';
import { root } from '../harness/child.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export type Json = Record<string, any>;
export const EXAMPLES = ['examples/publishing.model.json', 'examples/billing.model.json'];

export function manifestOf(modelFile: string, edit?: (model: Json) => void): Manifest {
  const model = JSON.parse(readFileSync(join(root, modelFile), 'utf8'));
  edit?.(model);
  return buildManifest(compileModel(model).model);
}

export const documentOf = (modelFile: string): Json => buildOpenApi(manifestOf(modelFile));
/** A named schema: a component schema, or the JSON schema of a request body (components.requestBodies; a create's object form). */
export const schemaOf = (doc: Json, name: string): Json => {
  const body = doc.components.requestBodies?.[name]?.content['application/json'].schema;
  return doc.components.schemas[name] ?? listBodyItem(body) ?? body;
};

/** Follows a local `$ref` (#/components/...) once. */
export function resolve(doc: Json, node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  return node.$ref.slice(2).split('/').map((k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~')).reduce((at: Json, key: string) => at[key], doc);
}

/** Validates values against the document's schemas, by component name or a response's declared schema. */
export class DocumentValidator {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  constructor(readonly doc: Json) {
    addFormats(this.#ajv);
    this.#ajv.addSchema({ $id: 'https://spec.invalid/doc.json', components: doc.components });
  }

  /** Error text, or '' when `value` matches the component schema `name`. */
  check(name: string, value: unknown): string {
    const validate = this.#ajv.getSchema(`https://spec.invalid/doc.json#/components/schemas/${name}`)!;
    return validate(value) ? '' : this.#ajv.errorsText(validate.errors, { dataVar: name });
  }

  /** The response object the operation declares for `status` (path as in the document). */
  declared(path: string, method: string, status: number): Json {
    const op = this.doc.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`the document has no ${method} ${path}`);
    const response = op.responses[String(status)];
    if (!response) throw new Error(`${method} ${path} declares no ${status} response`);
    return resolve(this.doc, response);
  }
}

/** The reply's status is declared for the operation, its body matches, its declared headers are sent. */
export function checkReply(v: DocumentValidator, reply: Reply, method: string, path: string): any {
  const declared = v.declared(path, method, reply.status);
  for (const h of Object.keys(declared.headers ?? {})) assert.ok(reply.headers.get(h), `${method} ${path} ${reply.status} sends ${h}`);
  if (!declared.content) {
    assert.is(reply.text, '', `${method} ${path} ${reply.status} has no body`);
    return undefined;
  }
  const type = (reply.headers.get('content-type') ?? '').split(';')[0]!;
  const media = declared.content[type];
  assert.ok(media, `${method} ${path} ${reply.status} declares ${type}: ${reply.text.slice(0, 300)}`);
  const name = String(media.schema.$ref).split('/').pop()!;
  assert.is(v.check(name, reply.body), '', `${method} ${path} ${reply.status}: ${reply.text.slice(0, 400)}`);
  return reply.body;
}
