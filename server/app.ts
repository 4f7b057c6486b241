// The HTTP gateway, built from the manifest alone: route → identity → plan (query, body) → one
// api.dispatch call → response; any failure on the way becomes a problem document.
import { Hono, type Context } from 'hono';
import type { Sql } from 'postgres';
import type { Manifest } from '../compiler/manifest/types.ts';
import { callOf, planRequest, type Plan, type Planner } from './plan/plan.ts';
import { indexRoutes, routeTemplate } from './plan/routes.ts';
import { cors } from 'hono/cors';
import { compression } from './http/compression.ts';
import type { Logger } from 'pino';
import { failedRequest, observe, requestIdOf, setCaller, setRoute, shaped } from './http/observe.ts';
import type { Metrics } from './http/metrics.ts';
import { rateLimit } from './http/rate-limit.ts';
import { BodyValidators } from './plan/validate.ts';
import { failureLog, type FailureLog } from './problem/log.ts';
import { renderProblem } from './problem/render.ts';
import { requestProblem } from './stages/problem.ts';
import { ApiError, methodNotAllowed, notFound } from './problem/types.ts';
import { dispatch, dispatchGuarded, keptAnswer } from './query/dispatch.ts';
import { idempotencyKey, idempotencyOf } from './request/idempotency.ts';
import { resultRow } from './request/wire.ts';
import { canonicalText, responseText } from './codec/json.ts';
import { batchRunner, type BatchDeps } from './batch/run.ts';
import { endpointAt } from './plan/endpoint.ts';
import { readJsonObject } from './request/body.ts';
import { singlePool, type Pools } from './pg/pools.ts';
import { onlyReads } from '../compiler/query/operations.ts';
import { mergedDocuments } from './plan/validate.ts';
import { ANONYMOUS, createVerifier, identify, type Identity } from './request/auth.ts';
import { DEFAULT_LIMITS, type RequestLimits } from './request/limits.ts';
import { callerIp, callerKey, compileTrust } from './request/caller.ts';
import { sentPath } from './request/path.ts';
import { recipientOf } from './request/recipient.ts';
import { refuseAnyQuery } from './request/query.ts';
import { respond } from './response/respond.ts';
import { docsRoutes } from './docs.ts';
import type { Files } from './files/service.ts';
import { fileRoutes } from './files/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { secretKey, type SigningKey } from './auth/keys.ts';
import { DEFAULT_AUTH_SETTINGS, type AuthSettings } from './auth/settings.ts';
import type { ClaimPaths } from './request/claims.ts';
import { ChangeStreams, streamTimings } from './events/streams.ts';
import { openStream, planStream, wantsEvents, type StreamDeps } from './events/route.ts';

export interface AppOptions {
  /** The primary's client (files use it); requests go through `pools` when given, else through this. */
  sql: Sql;
  /** The primary's and the replicas' pools, with their gates and time limits (server/pg/pools.ts). */
  pools?: Pools;
  manifest: Manifest;
  /** HS256 secret; with `jwksUrl`, RS256/ES256 keys from that JWKS instead. */
  jwtSecret?: string;
  jwksUrl?: string;
  /** Required `aud` of tokens, when set. */
  jwtAudience?: string;
  /** The gateway's own ES256/RS256 key (JWT_PRIVATE_KEY): signs /auth tokens, verifies them, is published as JWKS. */
  signingKey?: SigningKey;
  /** Token lifetimes and sign-in limits of the /auth endpoints (server/auth/settings.ts). */
  auth?: Partial<AuthSettings>;
  /** Where each claim is read in a token (JWT_CLAIM_<NAME>, server/request/claims.ts). */
  claimPaths?: ClaimPaths;
  /** Add an Access-Scenario header naming the winning scenario (EXPLAIN_ACCESS). */
  explainAccess?: boolean;
  /** Request limits (server/request/limits.ts); `maxBodyBytes` alone is kept for callers that set only it. */
  limits?: Partial<RequestLimits>;
  maxBodyBytes?: number;
  /** Proxies in front of the gateway whose X-Forwarded-For is believed (TRUST_PROXY: hops, or addresses). */
  trustProxy?: boolean | number | string;
  /** File handling (upload intents, storage, signed links); without it file properties cannot be written. */
  files?: Files;
  /** Where 5xx causes go (default: one error line each through `logger`, else on stderr); clients never see them. */
  log?: FailureLog;
  /** The access log (one JSON line per request) and the error lines; none when absent. */
  logger?: Logger;
  /** Whether access lines name the caller: the token's `sub` and the client's `ip` (LOG_CALLER; default true). */
  logCaller?: boolean;
  /** Request counts and latencies by route template (GET /metrics is mounted by the caller). */
  metrics?: Metrics;
  /** Origins a browser may call the API from (CORS_ORIGINS): a list, or ['*']; none: no CORS headers. */
  corsOrigins?: string[];
  /** The change-stream hub (server/events/streams.ts); without one, the app makes its own on the primary. */
  streams?: ChangeStreams;
}

/** A request with a precondition wants the newest state: it goes to the primary, never to a replica. */
const conditional = (h: Headers) => h.has('if-match') || h.has('if-none-match') || h.has('if-modified-since') || h.has('if-unmodified-since');

export function createApp(opts: AppOptions): Hono {
  const { sql, manifest } = opts;
  const { basePath, docsUrl } = manifest.api;
  // Our own tokens (/auth/token) are signed with the private key, else with the secret (unless a JWKS verifies).
  const signingKey = opts.signingKey ?? (opts.jwtSecret && !opts.jwksUrl ? secretKey(opts.jwtSecret) : undefined);
  const own = signingKey?.publicKey && signingKey.kid && signingKey.alg !== 'HS256'
    ? { alg: signingKey.alg, publicKey: signingKey.publicKey, kid: signingKey.kid } : undefined;
  const verify = createVerifier({
    ...(opts.jwtSecret ? { secret: opts.jwtSecret } : {}), ...(opts.jwksUrl ? { jwksUrl: opts.jwksUrl } : {}),
    ...(opts.jwtAudience ? { audience: opts.jwtAudience } : {}), ...(own ? { ownKey: own } : {}),
    ...(opts.claimPaths ? { claimPaths: opts.claimPaths } : {}),
  });
  const trust = compileTrust(opts.trustProxy);
  const routes = indexRoutes(manifest);
  const limits: RequestLimits = { ...DEFAULT_LIMITS, ...opts.limits, ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}) };
  const planner: Planner = { manifest, validators: new BodyValidators(manifest), limits };
  const log = opts.log ?? failureLog(opts.logger);
  const documents = mergedDocuments(planner.validators);
  const pools = opts.pools ?? singlePool(sql, limits);
  const streamDeps: StreamDeps = {
    streams: opts.streams ?? new ChangeStreams({ pool: pools.primary, listener: sql, log, ...streamTimings(limits) }),
    planner, pool: pools.primary, ...(opts.files ? { files: opts.files } : {}),
    maxPerCaller: limits.maxStreamsPerCaller, bufferBytes: limits.eventsBufferBytes,
  };

  /** The caller of a request: its token verified, its `sub` kept for the access log. */
  const identified = async (c: Context): Promise<Identity> => {
    const identity = await identify(c.req.header('authorization'), verify);
    setCaller(c, identity);
    return identity;
  };

  const fail = (c: Context, err: unknown, url: URL) => {
    const problem = err instanceof ApiError ? err : new ApiError('internal', 'The request failed because of an internal error.', {}, { cause: err });
    if (problem.status >= 500) log('request failed', problem.cause ?? err, failedRequest(c, problem.status));
    return renderProblem(problem, { docsUrl, instance: url.pathname });
  };

  const handle = async (c: Context) => {
    const url = new URL(c.req.url);
    let identity: Identity = ANONYMOUS;
    let plan: Plan | undefined;
    try {
      const method = c.req.method === 'HEAD' ? 'GET' : c.req.method; // Hono answers HEAD with GET's response, bodiless
      const endpoint = routed(() => endpointAt(routes, basePath, sentPath(url, c.env), method), c.req.method, url.pathname);
      setRoute(c, basePath + routeTemplate(endpoint));
      identity = await identified(c);
      if (endpoint.action === 'list' && c.req.method === 'GET' && wantsEvents(c.req.header('accept'))) {
        const stream = await planStream(planner, endpoint, c.req.raw, url);
        plan = stream.plan;
        const recipient = recipientOf(c.env);
        return await openStream(streamDeps, {
          req: c.req.raw, identity, ip: callerIp(c, trust), headers: { 'X-Request-Id': requestIdOf(c) }, ...(recipient ? { recipient } : {}),
        }, plan, stream.from);
      }
      plan = await planRequest(planner, endpoint, c.req.raw, url);
      const ip = callerIp(c, trust);
      const once = idempotencyOf(c.req.raw.headers, endpoint.action, identity, ip, plan, limits.idempotencyTtlSeconds);
      const call = callOf(plan, identity, ip, !!once, recipientOf(c.env));
      const merged = plan.merged;
      const pool = onlyReads(endpoint.action) && !conditional(c.req.raw.headers) ? pools.read() : pools.primary;
      const check = merged && ((r: unknown) => documents.verify(merged, resultRow(r)));
      const run = () => check || once ? dispatchGuarded(pool, call, { ...(check ? { check } : {}), ...(once ? { once } : {}) }) : dispatch(pool, call);
      // A retry of a kept write is answered before its files are attached again.
      const kept = once ? await keptAnswer(pool, once) : undefined;
      const result = kept === undefined ? (opts.files ? await opts.files.around(plan, call, run, c.req.url) : await run())
        : opts.files ? await opts.files.present(plan, kept, c.req.url) : kept;
      const res = respond(plan, result, c.req.raw, basePath, { 'X-Request-Id': requestIdOf(c) });
      shaped(c);
      if ((result as { replayed?: boolean } | null)?.replayed) res.headers.set('Idempotent-Replayed', 'true');
      const scenario = (result as { scenario?: unknown } | null)?.scenario;
      if (opts.explainAccess && typeof scenario === 'string') res.headers.set('Access-Scenario', scenario.replace(/[^\x20-\x7e]/g, (ch) => encodeURIComponent(ch)));
      return res;
    } catch (err) {
      return fail(c, requestProblem(err, plan, identity, manifest), url);
    }
  };

  /**
   * 405 with Allow for a path that routes of their own serve with other methods (the documents under the base
   * path, jwks.json, /health, /metrics: routes added after this app is made count too); undefined otherwise.
   */
  const otherMethods = (method: string, path: string): ApiError | undefined => {
    const methods = [...new Set(app.routes.filter((r) => r.path === path && r.method !== 'ALL').map((r) => r.method))];
    if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
    return methods.length ? methodNotAllowed(method, methods) : undefined;
  };
  /** The API's route for a path, or the 405 of another route's path, or the API's own 404. */
  const routed = <T>(find: () => T, method: string, path: string): T => {
    try {
      return find();
    } catch (err) {
      throw (err instanceof ApiError && err.status === 404 ? otherMethods(method, path) : undefined) ?? err;
    }
  };

  const batchDeps: Omit<BatchDeps, 'log'> = { manifest, routes, planner, documents, pool: pools.primary, ...(opts.files ? { files: opts.files } : {}) };
  const handleBatch = async (c: Context) => {
    const url = new URL(c.req.url);
    try {
      if (c.req.method !== 'POST') throw methodNotAllowed(c.req.method, ['POST']);
      setRoute(c, `${basePath}/batch`);
      refuseAnyQuery(c.req.url);
      const identity = await identified(c);
      const body = await readJsonObject(c.req.raw, limits.maxBodyBytes, limits.maxJsonMembers);
      const ip = callerIp(c, trust);
      const once = idempotencyKey(c.req.raw.headers, identity, ip, () => `batch\n${canonicalText(body)}`, limits.idempotencyTtlSeconds);
      // The batch's failure is logged with the status it answered (a runner per batch: its log knows the request).
      const failures: unknown[] = [];
      const batch = batchRunner({ ...batchDeps, log: (_message, err) => void failures.push(err) });
      const outcome = await batch({ identity, ip, requestUrl: c.req.url, ...(once ? { once } : {}) }, body);
      for (const err of failures) log('request failed', err, failedRequest(c, outcome.status));
      return new Response(responseText(outcome.body), { status: outcome.status, headers: outcome.headers });
    } catch (err) {
      return fail(c, requestProblem(err, undefined, ANONYMOUS, manifest), url);
    }
  };

  const app = new Hono();
  app.use('*', observe(opts.logger, opts.metrics, opts.logCaller === false ? undefined : (c) => callerIp(c, trust)));
  if (opts.corsOrigins?.length) {
    app.use('*', cors({
      origin: opts.corsOrigins.includes('*') ? '*' : opts.corsOrigins,
      allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-Modified-Since', 'If-None-Match', 'If-Unmodified-Since', 'X-Request-Id'],
      exposeHeaders: ['ETag', 'Location', 'Last-Modified', 'Retry-After', 'X-Request-Id', 'Access-Scenario', 'Idempotent-Replayed'],
      maxAge: 600,
    }));
  }
  app.use('*', compression());
  if (limits.rateLimitRequests > 0) {
    app.use(`${basePath}/*`, rateLimit({
      requests: limits.rateLimitRequests, windowSeconds: limits.rateLimitWindowSeconds,
      caller: async (c) => callerKey(await identified(c).catch(() => ANONYMOUS), callerIp(c, trust)),
      fail: (c, err) => fail(c, err, new URL(c.req.url)),
    }));
  }
  app.route('/', docsRoutes(manifest)); // GET openapi.json, api.raml, docs: before the API's catch-all
  if (opts.files) {
    app.route('/', fileRoutes(opts.files, { // POST .well-known/upload; the local driver's signed addresses
      identify: identified,
      ip: (c) => callerIp(c, trust),
      fail: (c, err) => fail(c, err, new URL(c.req.url)),
    }));
  }
  // A collection named "batch" keeps its route, as with the documents.
  if (!Object.values(manifest.resources).some((r) => r.collection === 'batch')) app.all(`${basePath}/batch`, handleBatch);
  app.route('/', authRoutes({ // POST auth/token, auth/refresh, auth/logout; GET /.well-known/jwks.json
    manifest, pool: pools.primary, key: signingKey, settings: { ...DEFAULT_AUTH_SETTINGS, ...opts.auth },
    ...(opts.jwtAudience ? { audience: opts.jwtAudience } : {}),
    ip: (c) => callerIp(c, trust), fail: (c, err) => fail(c, err, new URL(c.req.url)),
  }));
  app.all(basePath, handle);
  app.all(`${basePath}/*`, handle);
  app.notFound((c) => {
    const url = new URL(c.req.url);
    return fail(c, otherMethods(c.req.method, url.pathname) ?? notFound(`No route ${url.pathname}.`), url);
  });
  app.onError((err, c) => fail(c, err, new URL(c.req.url)));
  return app;
}
