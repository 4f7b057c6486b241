// `npm run spec -- --model <file> --out <dir>`: writes <dir>/openapi.json and <dir>/api.raml (default .data/spec) for a
// model, without a database: the manifest is built in process, exactly as the migration stores it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileFile, ModelValidationError } from './index.ts';
import { buildManifest } from './manifest/build.ts';
import { buildOpenApi } from './openapi/document.ts';
import { buildRaml } from './raml/build.ts';

const { values } = parseArgs({
  options: { model: { type: 'string', default: process.env.MODEL ?? 'examples/publishing.model.json' }, out: { type: 'string', default: '.data/spec' } },
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
