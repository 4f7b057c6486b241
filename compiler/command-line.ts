// What every command line of the project shares: --help and --version, and bad arguments answered with the usage and
// exit code 2, never a stack trace (node:util parseArgs underneath, strict).
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The project's version, from its package.json (beside compiler/, in the sources and in dist/ alike). */
export function projectVersion(): string {
  for (const up of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { version: string }).version;
    } catch { /* the next folder up */ }
  }
  return 'unknown';
}

/**
 * The command's options, or the process ends: `--help`/`-h` prints `usage` (exit 0), `--version` the project's
 * name and version (exit 0), an unknown option or a missing value prints what is wrong and the usage (exit 2).
 */
export function commandLine<O extends Options>(usage: string, options: O, argv = process.argv.slice(2)) {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } };
  let parsed: { values: Record<string, unknown> };
  try {
    parsed = parseArgs({ args: argv, options: all, strict: true, allowPositionals: false }) as { values: Record<string, unknown> };
  } catch (err) {
    console.error(`${(err as Error).message.split('\n')[0]}\n\n${usage}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(usage);
    process.exit(0);
  }
  if (parsed.values.version) {
    console.log(`modelapi ${projectVersion()}`);
    process.exit(0);
  }
  return parsed.values as ReturnType<typeof parseArgs<{ options: O }>>['values'];
}
