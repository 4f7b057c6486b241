// What `npm test -- <target>` runs: a folder of *.test.ts files, or one test file, as uvu's folder
// and file pattern (uvu itself takes only a folder); and, after a crash, the files still to run.
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parse } from 'uvu/parse';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** uvu's folder and file pattern for what `npm test -- <target>` names: a folder, or one test file. */
export function uvuTarget(target: string): [dir: string, pattern: string] {
  const path = target.replace(/\/+$/, '');
  if (!/\.test\.ts$/.test(path)) return [path, '\\.test\\.ts$'];
  if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`no test file ${path}`);
  return [dirname(path), `^${escape(basename(path))}$`];
}

/** The files uvu runs for a folder and pattern, by the names it prints, in its order. */
export async function suitesOf(dir: string, pattern: string): Promise<string[]> {
  return (await parse(dir, pattern)).suites.map((s) => s.name);
}

/** A pattern for exactly these files. */
export const onlySuites = (names: string[]): string => `^(?:${names.map(escape).join('|')})$`;

/** What a uvu run that died before its totals leaves: its finished suites' tallies, and the file it died in. */
export function crashReport(output: string, names: string[]): { passed: number; failed: number; stoppedIn?: string } {
  const lines = output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split('\n').map((l) => l.trim());
  let passed = 0, failed = 0, stoppedIn: string | undefined;
  for (const line of lines) {
    if (names.includes(line)) stoppedIn = line; // uvu prints a file's name before its tests
    const tally = /\((\d+) \/ (\d+)\)$/.exec(line); // and "(passed / total)" after each suite of it
    if (tally) {
      passed += Number(tally[1]);
      failed += Number(tally[2]) - Number(tally[1]);
    }
  }
  return { passed, failed, ...(stoppedIn ? { stoppedIn } : {}) };
}
