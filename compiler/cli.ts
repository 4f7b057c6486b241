// `npm run compile -- --model <file> [--out <migrations dir>]`: validates a model and writes its idempotent
// migration to <dir>/current.sql (default db/migrations): whole, or what changed since <dir>/committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileFile, ModelValidationError } from './index.ts';
import { scriptFor } from './delta.ts';

const { values } = parseArgs({
  options: { model: { type: 'string', default: process.env.MODEL ?? 'examples/publishing.model.json' }, out: { type: 'string', default: 'db/migrations' } },
});

try {
  const { model } = compileFile(values.model!);
  mkdirSync(values.out!, { recursive: true });
  const target = join(values.out!, 'current.sql');
  writeFileSync(target, scriptFor(model, values.out!));
  const n = Object.keys(model.entities).length;
  console.log(`Compiled ${values.model} (${model.api.title}, ${n} entities) into ${target}`);
} catch (err) {
  console.error(err instanceof ModelValidationError ? err.message : `Cannot compile ${values.model}: ${(err as Error).message}`);
  process.exit(1);
}
