// The project's root folder, where `.data/` lives: found from this file, so the sources and the built dist/ agree.
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** The folder of the project's package.json: the same from the sources and from the built dist/. */
export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir + sep;
    if (dirname(dir) === dir) return fileURLToPath(new URL('../../', import.meta.url));
  }
}
