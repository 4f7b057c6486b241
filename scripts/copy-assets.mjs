// After `tsc -p tsconfig.build.json`: the files the compiled code reads at run time beside it in dist/
// (the static SQL of the engine and the model's JSON Schema), so `node dist/...` needs no sources.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';

const out = process.argv[2] ?? 'dist';
mkdirSync(`${out}/compiler/sql`, { recursive: true });
for (const f of readdirSync('compiler/sql').filter((x) => x.endsWith('.sql'))) cpSync(`compiler/sql/${f}`, `${out}/compiler/sql/${f}`);
cpSync('compiler/model.schema.json', `${out}/compiler/model.schema.json`);
console.log(`Built into ${out}/: node ${out}/server/cli/serve.js serves a migrated database.`);
