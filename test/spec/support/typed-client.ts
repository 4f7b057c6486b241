// A typed client as its users make one: openapi-typescript 7 writes types from the served document, a
// small program using openapi-fetch is type-checked (tsc, strict) and run against the gateway.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, runProcess } from '../../harness/child.ts';
import type { RunningApi } from '../../e2e/support/server.ts';

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
    allowImportingTsExtensions: true, skipLibCheck: true, types: ['node'],
  },
  files: ['client.ts'],
};

/**
 * openapi-typescript 7 needs TypeScript 5's compiler API, which the project's TypeScript 7 lacks: it lives
 * in the tools/typed-client workspace with its own TypeScript 5.
 */
export async function openapiTS(document: unknown): Promise<string> {
  const workspace = createRequire(join(root, 'tools/typed-client/package.json'));
  const { default: generate, astToString } = await import(pathToFileURL(workspace.resolve('openapi-typescript')).href) as {
    default: (doc: unknown) => Promise<unknown>; astToString: (ast: unknown) => string;
  };
  return astToString(await generate(document));
}

/** A folder for one client: under node_modules, so that the program resolves openapi-fetch as the project does. */
export class ClientFolder {
  readonly dir: string;

  constructor(name: string) {
    const cache = join(root, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    this.dir = mkdtempSync(join(cache, `${name}-`));
  }

  /** Writes the types and the program (client.ts), and type-checks them. */
  check(types: string, program: string): SpawnSyncReturns<string> {
    writeFileSync(join(this.dir, 'api.ts'), types);
    writeFileSync(join(this.dir, 'client.ts'), program);
    writeFileSync(join(this.dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(this.dir, 'package.json'), '{"type": "module"}');
    const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
    return spawnSync(process.execPath, [tsc, '-p', this.dir], { cwd: this.dir, encoding: 'utf8', timeout: 120_000 });
  }

  /**
   * Runs the program against `api` (asynchronously: the gateway answers from this very process) and
   * returns the JSON of its last line, or throws with what it printed.
   */
  async run(api: RunningApi): Promise<any> {
    const env = { API_BASE: api.origin + api.basePath, API_TOKEN: await api.token() };
    const { code, stdout, stderr } = await runProcess(process.execPath, ['--import', 'tsx', join(this.dir, 'client.ts')], env, 60_000);
    if (code !== 0) throw new Error(`the program failed (exit ${code}): ${stdout} ${stderr}`);
    return JSON.parse(stdout.trim().split('\n').pop()!);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
