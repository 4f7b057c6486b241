// Gateways as a deployment runs them: `serve` in a child process with the gateway's own login and the
// environment given, its JSON access log collected line by line, and an HTTP client for its API.
import { join } from 'node:path';
import { Client } from '../e2e/support/http.ts';
import { root, startTs, type Running } from './child.ts';
import { freePort } from './net.ts';

export const SERVE_JWT_SECRET = 'serve-test-secret-0123456789abcdef-0123456789';

export interface ServedGateway extends Running {
  origin: string;
  /** The JSON lines the gateway logged so far. */
  logs(): Array<Record<string, any>>;
  client(basePath: string, docsUrl?: string): Client;
}

/** Starts `serve` from the source; `env` needs at least GATEWAY_DATABASE_URL. */
export async function startServe(env: NodeJS.ProcessEnv): Promise<ServedGateway> {
  const port = await freePort();
  const running = await startTs(join(root, 'ops/cli/serve.ts'), [], {
    JWT_SECRET: SERVE_JWT_SECRET, FILES_SECRET: 'serve-test-files-secret', PORT: String(port), DATABASE_READ_URL: '', ...env,
  }, /Health: /, 60_000);
  const origin = `http://127.0.0.1:${port}`;
  return Object.assign(running, {
    origin,
    logs: () => running.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>),
    client: (basePath: string, docsUrl = 'https://docs.example.com') => new Client(origin, basePath, docsUrl, SERVE_JWT_SECRET),
  });
}
