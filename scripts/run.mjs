// Runs one command line of the project in this process (`node scripts/run.mjs ops/cli/migrate [args]`): from
// the TypeScript sources through tsx where tsx is installed, else from the build in dist/ (npm ci --omit=dev).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url);
const name = process.argv[2];
if (!name || !/^(compiler|ops\/cli)\/[a-z-]+$/.test(name)) {
  console.error('usage: node scripts/run.mjs <compiler/cli | ops/cli/NAME> [arguments]');
  process.exit(2);
}
process.argv.splice(2, 1); // the command sees its own arguments, as when run directly

// `npm run` starts this under sh, and a signal npm forwards ends sh alone, leaving this process behind it (dash does
// not exec the command). A command whose parent is gone is told SIGTERM, so it drains and stops as when signalled.
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphaned);
  process.kill(process.pid, 'SIGTERM');
}, 500).unref();

const source = fileURLToPath(new URL(`${name}.ts`, root));
const built = fileURLToPath(new URL(`dist/${name}.js`, root));
const tsx = await import('tsx/esm/api').catch(() => undefined);
if (tsx && existsSync(source)) {
  tsx.register();
  await import(pathToFileURL(source).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  console.error(`${name}: no build at dist/${name}.js and no tsx to run the sources (a production install needs \`npm run build\` first).`);
  process.exit(1);
}
