// What the stages of a request share: the gateway's options as given (AppOptions), what is made of them once
// (Gateway: verifier, routes, planner, pools, streams), and what one stage hands the next through the request's
// Hono context (identity, endpoint, request, plan), typed here for every c.get and c.set.
import type { Sql } from 'postgres';
import type { Logger } from 'pino';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { secretKey, type SigningKey } from '../auth/keys.ts';
import type { AuthSettings } from '../auth/settings.ts';
import { ChangeStreams, streamTimings } from '../events/streams.ts';
import type { StreamDeps } from '../events/route.ts';
import type { Files } from '../files/service.ts';
import type { Metrics } from '../http/metrics.ts';
import { singlePool, type Pools } from '../pg/pools.ts';
import type { Plan, Planner } from '../plan/plan.ts';
import { indexRoutes, type Endpoint, type RouteIndex } from '../plan/routes.ts';
import { BodyValidators, mergedDocuments, type MergedDocuments } from '../plan/validate.ts';
import { failureLog, type FailureLog } from '../problem/log.ts';
import { createVerifier, type Identity, type Verify } from '../request/auth.ts';
import { compileTrust } from '../request/caller.ts';
import type { ParsedRequest } from '../request/parse.ts';
import type { ClaimPaths } from '../request/claims.ts';
import { DEFAULT_LIMITS, type RequestLimits } from '../request/limits.ts';

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

/** The gateway as its stages use it: made once from the options, the same for every request. */
export interface Gateway {
  opts: AppOptions;
  manifest: Manifest;
  basePath: string;
  docsUrl: string;
  /** Our own tokens (/auth/token) are signed with it. */
  signingKey: SigningKey | undefined;
  verify: Verify;
  trust: ReturnType<typeof compileTrust>;
  routes: RouteIndex;
  limits: RequestLimits;
  planner: Planner;
  log: FailureLog;
  documents: MergedDocuments;
  pools: Pools;
  streams: StreamDeps;
}

/** What one stage hands the next in a request's context: each is set by the stage that makes it. */
declare module 'hono' {
  interface ContextVariableMap {
    /** The caller (stages/identity.ts). */
    identity: Identity | undefined;
    /** The matched endpoint (stages/route.ts). */
    endpoint: Endpoint | undefined;
    /** The parsed request (stages/parse.ts). */
    request: ParsedRequest | undefined;
    /** The planned call (stages/plan.ts). */
    plan: Plan | undefined;
  }
}

export function gatewayOf(opts: AppOptions): Gateway {
  const { sql, manifest } = opts;
  // Our own tokens (/auth/token) are signed with the private key, else with the secret (unless a JWKS verifies).
  const signingKey = opts.signingKey ?? (opts.jwtSecret && !opts.jwksUrl ? secretKey(opts.jwtSecret) : undefined);
  const own = signingKey?.publicKey && signingKey.kid && signingKey.alg !== 'HS256'
    ? { alg: signingKey.alg, publicKey: signingKey.publicKey, kid: signingKey.kid } : undefined;
  const verify = createVerifier({
    ...(opts.jwtSecret ? { secret: opts.jwtSecret } : {}), ...(opts.jwksUrl ? { jwksUrl: opts.jwksUrl } : {}),
    ...(opts.jwtAudience ? { audience: opts.jwtAudience } : {}), ...(own ? { ownKey: own } : {}),
    ...(opts.claimPaths ? { claimPaths: opts.claimPaths } : {}),
  });
  const limits: RequestLimits = { ...DEFAULT_LIMITS, ...opts.limits, ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}) };
  const planner: Planner = { manifest, validators: new BodyValidators(manifest), limits };
  const log = opts.log ?? failureLog(opts.logger);
  const pools = opts.pools ?? singlePool(sql, limits);
  const streams: StreamDeps = {
    streams: opts.streams ?? new ChangeStreams({ pool: pools.primary, listener: sql, log, ...streamTimings(limits) }),
    planner, pool: pools.primary, ...(opts.files ? { files: opts.files } : {}),
    maxPerCaller: limits.maxStreamsPerCaller, bufferBytes: limits.eventsBufferBytes,
  };
  return {
    opts, manifest, basePath: manifest.api.basePath, docsUrl: manifest.api.docsUrl, signingKey, verify,
    trust: compileTrust(opts.trustProxy), routes: indexRoutes(manifest), limits, planner, log,
    documents: mergedDocuments(planner.validators), pools, streams,
  };
}
