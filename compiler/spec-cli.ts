// `npm run spec -- --model <file> --out <dir>`: writes <dir>/openapi.json and <dir>/api.raml (default .data/spec) for a
// model, without a database: the manifest is built in process, exactly as the migration stores it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from './command-line.ts';
import { compileFile, ModelValidationError } from './index.ts';
import { buildManifest } from './manifest/build.ts';
import { buildOpenApi } from './openapi/document.ts';
import { buildRaml } from './raml/build.ts';

const values = commandLine(`Usage: npm run spec -- [--model <file>] [--out <dir>]

Writes the model's OpenAPI 3.1 (openapi.json) and RAML 1.0 (api.raml) documents to <dir> (default .data/spec),
without a database.`, {
  model: { type: 'string', default: process.env.MODEL ?? 'examples/publishing.model.json' }, out: { type: 'string', default: '.data/spec' },
});

try {
  const { model } = compileFile(values.model!);
  const openapi = buildOpenApi(buildManifest(model));
  mkdirSync(values.out!, { recursive: true });
  writeFileSync(join(values.out!, 'openapi.json'), `${JSON.stringify(openapi, null, 2)}\n`);
  writeFileSync(join(values.out!, 'api.raml'), buildRaml(openapi));
  console.log(`Wrote ${join(values.out!, 'openapi.json')} and ${join(values.out!, 'api.raml')} for ${model.api.title} ${model.api.version}`);
} catch (err) {
  console.error(err instanceof ModelValidationError ? err.message : `Cannot generate specifications for ${values.model}: ${(err as Error).message}`);
  process.exit(1);
}
