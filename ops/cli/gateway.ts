// Runs the gateway over a connection that logs in as `authenticator`: the app from the database's
// manifest, /health, /live, /ready, /metrics, the file outbox, change log retention, webhooks, limits, and a graceful stop. Shared by
// `npm start` (after it migrated) and `serve` (which changes nothing in the database).
import type { Server } from 'node:http';
import { pino } from 'pino';
import type { Sql } from 'postgres';
import { createApp } from '../../server/app.ts';
import { healthRoutes } from '../../server/health.ts';
import { docsPagePath } from '../../server/docs.ts';
import { listen } from '../../server/http/listen.ts';
import { Drain } from '../../server/http/drain.ts';
import { Metrics } from '../../server/http/metrics.ts';
import { BlockSink } from '../../server/http/log-sink.ts';
import { flushObservations, observedTime } from '../../server/http/observe.ts';
import { failureLog } from '../../server/problem/log.ts';
import { loadManifest } from '../../server/query/manifest.ts';
import type { RequestLimits } from '../../server/request/limits.ts';
import { Files } from '../../server/files/service.ts';
import { ChangeLogRetention } from '../../server/events/retention.ts';
import { ChangeStreams, streamTimings } from '../../server/events/streams.ts';
import { webhookTargets } from '../../server/webhooks/settings.ts';
import { WebhookWorker } from '../../server/webhooks/worker.ts';
import { storageFromEnv } from '../../server/files/drivers.ts';
import { openPools, type Pools } from '../../server/pg/pools.ts';
import { privateKey } from '../../server/auth/keys.ts';
import { authSettingsFromEnv } from '../../server/auth/settings.ts';
import { claimPathsFromEnv } from '../../server/request/claims.ts';
import { compileTrust, trustedPeer } from '../../server/request/caller.ts';

export interface GatewayOptions {
  pools: Pools;
  port: number;
  limits: RequestLimits;
  /** HS256 secret, unless JWKS_URL is set. */
  jwtSecret?: string;
  env: NodeJS.ProcessEnv;
  /** Runs after the pool closed (npm start stops the embedded database here). */
  onStop?: () => Promise<void>;
  /** Lines printed once the server listens (`base` is its URL). */
  banner?: (base: string, manifest: Awaited<ReturnType<typeof loadManifest>>) => string[];
}

export async function runGateway(o: GatewayOptions): Promise<void> {
  const { pools, limits, env } = o;
  const sql = pools.primary.sql;
  const metrics = new Metrics();
  metrics.watchPools([pools.primary, ...pools.replicas]);
  metrics.watchOutbox(pools.probe);
  const manifest = await loadManifest(sql);
  // Each webhook's address and secret from the environment, before anything starts: a missing one stops the start.
  const hooks = webhookTargets(await webhookList(sql), env);
  const logger = accessLog(env.LOG_LEVEL ?? 'info');
  const files = new Files({
    sql, pool: pools.primary, manifest, storage: storageFromEnv(env, manifest.api.basePath), log: failureLog(logger), ...(env.PUBLIC_URL ? { publicUrl: env.PUBLIC_URL } : {}),
  });
  const flag = (v: string | undefined) => !!v && !/^(0|false|no|off)$/i.test(v);
  const signingKey = env.JWT_PRIVATE_KEY ? await privateKey(env.JWT_PRIVATE_KEY) : undefined;
  const streams = new ChangeStreams({
    pool: pools.primary, listener: sql, log: failureLog(logger), ...streamTimings(limits), observer: metrics.streams(),
  });
  const app = createApp({
    streams,
    auth: authSettingsFromEnv(env), claimPaths: claimPathsFromEnv(env), ...(signingKey ? { signingKey } : {}),
    sql, pools, manifest, limits, trustProxy: env.TRUST_PROXY, explainAccess: flag(env.EXPLAIN_ACCESS), files,
    logger, logCaller: flag(env.LOG_CALLER ?? 'true'), metrics,
    ...(env.CORS_ORIGINS ? { corsOrigins: env.CORS_ORIGINS.split(',').map((x) => x.trim()).filter(Boolean) } : {}),
    ...(o.jwtSecret ? { jwtSecret: o.jwtSecret } : {}), ...(env.JWKS_URL ? { jwksUrl: env.JWKS_URL } : {}),
    ...(env.JWT_AUDIENCE ? { jwtAudience: env.JWT_AUDIENCE } : {}),
  });
  files.start();
  const retention = new ChangeLogRetention(pools.primary, limits.eventsRetentionSeconds, failureLog(logger));
  retention.start();
  const webhooks = hooks.length ? new WebhookWorker(pools.primary, manifest, hooks, {
    timeoutMs: limits.webhookTimeoutMs, retrySeconds: limits.webhookRetrySeconds, backoffMs: limits.webhookBackoffMs,
    concurrency: limits.webhookConcurrency, keepSeconds: limits.webhookKeepSeconds,
  }, { log: failureLog(logger), counted: (webhook, outcome) => metrics.webhookAttempts.inc({ webhook, outcome }) }) : undefined;
  if (webhooks) {
    metrics.watchWebhooks(pools.probe);
    // Its own LISTEN on the change log's channel (a connection of its own); the timer covers a pooler that drops it.
    await webhooks.start((channel, onNotify) => sql.listen(channel, onNotify));
  }
  app.route('/', healthRoutes(pools.probe, { docsUrl: manifest.api.docsUrl }));
  app.route('/', metrics.routes(env.METRICS_TOKEN ? { token: env.METRICS_TOKEN, docsUrl: manifest.api.docsUrl } : undefined));

  let stopping = false;
  const drain = new Drain();
  const shutdown = async (code: number, signal?: NodeJS.Signals): Promise<never> => {
    if (!stopping) {
      stopping = true;
      const started = performance.now();
      logger.info({ signal, in_flight: drain.inFlight, streams: streams.open, grace_ms: limits.shutdownGraceMs }, 'draining');
      // Requests in flight finish (up to SHUTDOWN_GRACE_MS) before the pool closes; change streams end at once, once
      // no new connection is taken (their clients resume on another gateway with Last-Event-ID).
      const stopped = drain.stop(server as Server, limits.shutdownGraceMs);
      await streams.close();
      const drained = await stopped;
      const unfinished = drain.inFlight;
      // Storage deletions and webhook POSTs in flight finish (up to SHUTDOWN_GRACE_MS); what they leave stays queued.
      await Promise.all([files.stop(limits.shutdownGraceMs).catch(() => {}), webhooks?.stop(limits.shutdownGraceMs).catch(() => {})]);
      await retention.stop();
      await pools.end(2).catch(() => {});
      await o.onStop?.().catch(() => {});
      flushObservations(); // the last access lines come before the stopped line
      const took = { duration_ms: Math.round(performance.now() - started) };
      // With requests still in flight once SHUTDOWN_GRACE_MS ran out: a warning, with their number.
      if (drained) logger.info(took, 'stopped');
      else logger.warn({ ...took, in_flight: unfinished }, 'stopped');
    }
    process.exit(code);
  };
  const trusted = trustedPeer(compileTrust(env.TRUST_PROXY));
  const largestBody = Math.max(limits.maxBodyBytes, files.storage.driver === 'local' ? files.maxUploadBytes : 0);
  const server = listen(drain.wrap(app.fetch), { port: o.port, limits, docsUrl: manifest.api.docsUrl, trusted, largestBody }, (info) => {
    const base = `http://localhost:${info.port}`;
    for (const line of o.banner?.(base, manifest) ?? [`Serving ${manifest.api.title} at ${base}${manifest.api.basePath}`]) console.log(line);
    const docs = docsPagePath(manifest);
    if (docs) console.log(`Docs: ${base}${docs}`);
    console.log(`Health: ${base}/health`);
    console.log(`Files: ${files.storage.driver} storage (STORAGE_DRIVER)`);
  });
  server.on('error', (err: NodeJS.ErrnoException) => {
    console.error(err.code === 'EADDRINUSE' ? `Port ${o.port} is in use; set PORT to another port.` : `Server error: ${err.message}`);
    void shutdown(1);
  });
  process.once('SIGINT', () => void shutdown(0, 'SIGINT'));
  process.once('SIGTERM', () => void shutdown(0, 'SIGTERM'));
}

/** The model's webhooks (lib.webhook_list); a database migrated before webhooks existed is refused, saying what to do. */
async function webhookList(sql: Sql): Promise<Array<{ name: string; url: string }>> {
  try {
    return [...await sql<Array<{ name: string; url: string }>>`select name, url from lib.webhook_list()`];
  } catch (err) {
    if ((err as { code?: string }).code !== '42883') throw err; // undefined_function
    throw new Error('The database has no lib.webhook_list(): run migrate with this version of modelapi first.');
  }
}

/**
 * The gateway's log on stdout (access lines, error lines, the shutdown's), written in blocks rather than one write
 * per request (server/http/log-sink.ts); access lines are made in batches after their requests, each with its
 * request's time (server/http/observe.ts).
 */
function accessLog(level: string) {
  return pino({ level, timestamp: observedTime }, new BlockSink(process.stdout));
}

/**
 * The gateway's pools: `url` (its own login on the primary), DATABASE_READ_URL (replicas, comma list),
 * DATABASE_PREPARED_STATEMENTS (false behind a transaction-mode pooler), POOL_MAX and the time limits.
 */
export function poolsFromEnv(url: string, limits: RequestLimits, env: NodeJS.ProcessEnv): Pools {
  const readUrls = (env.DATABASE_READ_URL ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  return openPools({ primaryUrl: url, readUrls, limits, prepare: !/^(0|false|no|off)$/i.test(env.DATABASE_PREPARED_STATEMENTS ?? '') });
}

/** PORT, checked (default 3000). */
export function portFromEnv(env: NodeJS.ProcessEnv): number {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  return port;
}
