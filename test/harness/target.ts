// What `npm test -- <target>` runs: a folder of *.test.ts files, or one test file, as uvu's folder
// and file pattern (uvu itself takes only a folder).
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/** uvu's folder and file pattern for what `npm test -- <target>` names: a folder, or one test file. */
export function uvuTarget(target: string): [dir: string, pattern: string] {
  const path = target.replace(/\/+$/, '');
  if (!/\.test\.ts$/.test(path)) return [path, '\\.test\\.ts$'];
  if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`no test file ${path}`);
  const name = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [dirname(path), `^${name}$`];
}

