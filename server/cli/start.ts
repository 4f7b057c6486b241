// `npm start [-- --migrations <dir>]`: compiles the model (MODEL, default the publishing example) into
// <dir>/current.sql (db/migrations), brings the database (DATABASE_URL or embedded) up to it, serves the
// API the database's manifest describes (and /health) on PORT.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import postgres from 'postgres';
import { compileFile, ModelValidationError, type Compiled } from '../../compiler/index.ts';
import { projectRoot, resolveDatabase } from '../pg/resolve.ts';
import { gatewayUrl } from '../pg/gateway-role.ts';
import { describeFailure, migrateDatabase } from '../migrate.ts';
import { healthRoutes } from '../health.ts';
import { createApp } from '../app.ts';
import { loadManifest } from '../query/manifest.ts';
import { limitsFromEnv, timeoutSettings } from '../request/limits.ts';
import { answerClientErrors } from '../http/client-errors.ts';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { Metrics } from '../http/metrics.ts';
import { Drain } from '../http/drain.ts';
import { jwtSecret } from './jwt-secret.ts';
import { Files } from '../files/service.ts';
import { storageFromEnv } from '../files/storage.ts';

function compile(modelPath: string): Compiled {
  try {
    return compileFile(modelPath);
  } catch (err) {
    // ModelValidationError's message lists every error with its JSON pointer and rule.
    const what = err instanceof ModelValidationError ? 'is not a valid model' : 'could not be compiled';
    console.error(`${modelPath} ${what}.\n${(err as Error).message}`);
    process.exit(1);
  }
}

/**
 * The project's example model migrates from the repository's db/migrations (its current.sql is that
 * model compiled, so writing it changes nothing); any other model keeps its script under
 * .data/migrations/<slug>, so starting it never touches a tracked file.
 */
function defaultMigrations(modelPath: string, slug: string): string {
  const example = resolve(join(projectRoot, 'examples/publishing.model.json'));
  return modelPath === example ? join(projectRoot, 'db/migrations') : join(projectRoot, '.data/migrations', slug);
}

async function main(): Promise<void> {
  const modelPath = resolve(process.env.MODEL ?? join(projectRoot, 'examples/publishing.model.json'));
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);
  const limits = limitsFromEnv();
  const jwksUrl = process.env.JWKS_URL || undefined;
  const secret = jwksUrl ? undefined : jwtSecret();
  const { model, sql: script } = compile(modelPath);

  const { values } = parseArgs({ options: { migrations: { type: 'string' } } });
  const migrations = resolve(values.migrations ?? defaultMigrations(modelPath, model.api.slug));
  mkdirSync(join(migrations, 'committed'), { recursive: true });
  writeFileSync(join(migrations, 'current.sql'), script);

  const db = await resolveDatabase();
  try {
    await migrateDatabase({ connectionString: db.url, migrationsFolder: migrations });
  } catch (err) {
    console.error(describeFailure(err));
    await db.stop();
    process.exit(1);
  }

  let sql: postgres.Sql;
  try {
    sql = postgres(await gatewayUrl(db.url), { onnotice: () => {}, connect_timeout: 5, connection: timeoutSettings(limits) });
  } catch (err) {
    console.error(`Start failed: cannot prepare the gateway's login role: ${(err as Error).message}`);
    await db.stop();
    process.exit(1);
  }
  const trustProxy = process.env.TRUST_PROXY;
  const metrics = new Metrics();
  let manifest, app, files: Files | undefined;
  try {
    manifest = await loadManifest(sql);
    const storage = storageFromEnv(process.env, manifest.api.basePath);
    files = new Files({ sql, manifest, storage, ...(process.env.PUBLIC_URL ? { publicUrl: process.env.PUBLIC_URL } : {}) });
    files.start();
    const explainAccess = !!process.env.EXPLAIN_ACCESS && !/^(0|false|no)$/i.test(process.env.EXPLAIN_ACCESS);
    app = createApp({
      sql, manifest, limits, trustProxy, explainAccess, files, logger: pino({ level: process.env.LOG_LEVEL ?? 'info' }), metrics,
      ...(process.env.CORS_ORIGINS ? { corsOrigins: process.env.CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean) } : {}),
      ...(secret ? { jwtSecret: secret } : {}), ...(jwksUrl ? { jwksUrl } : {}),
      ...(process.env.JWT_AUDIENCE ? { jwtAudience: process.env.JWT_AUDIENCE } : {}),
    });
  } catch (err) {
    console.error(`Start failed: ${(err as Error).message}`);
    await sql.end({ timeout: 2 }).catch(() => {});
    await db.stop();
    process.exit(1);
  }
  app.route('/', healthRoutes(sql, { docsUrl: model.api.docsUrl }));
  app.route('/', metrics.routes());

  let stopping = false;
  const drain = new Drain();
  const shutdown = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      // Requests in flight finish (up to SHUTDOWN_GRACE_MS) before the pool closes.
      if (!await drain.stop(server as Server, limits.shutdownGraceMs)) console.error(`Stopped with requests still in flight after ${limits.shutdownGraceMs} ms.`);
      await files?.stop().catch(() => {});
      await sql.end({ timeout: 2 }).catch(() => {});
      await db.stop().catch(() => {});
    }
    process.exit(code);
  };
  const server = serve({ fetch: drain.wrap(app.fetch), port, serverOptions: { maxHeaderSize: limits.maxHeaderBytes } }, (info) => {
    const base = `http://localhost:${info.port}`;
    console.log(`Serving ${model.api.title} at ${base}`);
    console.log(`API: ${base}${manifest.api.basePath} (collections: ${Object.values(manifest.resources).map((r) => r.collection).join(', ')})`);
    console.log(`Token: npm run -s token -- --sub u1 --roles editor  (then: curl -H "Authorization: Bearer <token>" …)`);
    console.log(`Health: ${base}/health`);
    console.log(`Files: ${files?.storage.driver} storage (STORAGE_DRIVER)`);
  });
  answerClientErrors(server as Server, model.api.docsUrl, limits.maxHeaderBytes);
  server.on('error', (err: NodeJS.ErrnoException) => {
    console.error(err.code === 'EADDRINUSE' ? `Port ${port} is in use; set PORT to another port.` : `Server error: ${err.message}`);
    void shutdown(1);
  });
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
}

main().catch((err: unknown) => {
  console.error(`Start failed: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
});
