// After `tsc -p tsconfig.build.json`: the files the compiled code reads at run time beside it in dist/
// (the engine's static SQL, the model's JSON Schema, Scalar's browser bundle), so `node dist/...` needs no sources.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const out = process.argv[2] ?? 'dist';
mkdirSync(`${out}/compiler/sql`, { recursive: true });
for (const f of readdirSync('compiler/sql').filter((x) => x.endsWith('.sql'))) cpSync(`compiler/sql/${f}`, `${out}/compiler/sql/${f}`);
// The published schema lists the modules and rule types too: the registries' (compiler/modules, compiler/access/rules),
// composed in as validation does. Where the compiled registries cannot load yet (no packages beside dist/), the file is
// copied as it is: the compiled schema check composes it at load all the same.
let schema = JSON.parse(readFileSync('compiler/model.schema.json', 'utf8'));
try {
  const { composeModelSchema } = await import(pathToFileURL(resolve(out, 'compiler/model/schema-compose.js')).href);
  schema = composeModelSchema(schema);
} catch (err) {
  console.warn(`The model schema is copied without the registries' modules and rules (${err.code ?? err.message}).`);
}
writeFileSync(`${out}/compiler/model.schema.json`, `${JSON.stringify(schema, null, 2)}\n`);
// A devDependency, pinned by package-lock.json: production installs get the one file, not its packages.
const scalar = join(dirname(fileURLToPath(import.meta.resolve('@scalar/api-reference'))), 'browser/standalone.js');
mkdirSync(`${out}/server/assets`, { recursive: true });
cpSync(scalar, `${out}/server/assets/scalar-api-reference.js`); // server/docs.ts: SCALAR_ASSET
console.log(`Built into ${out}/: node ${out}/ops/cli/serve.js serves a migrated database.`);
