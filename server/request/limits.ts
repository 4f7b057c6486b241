// The limits a request is held to, in one place: their defaults, the environment variables that change
// them, and their reading at start. Each is checked before any database work but the time limits and a batch's
// answer size, counted as its operations answer (docs/limits.md).
import { readFileSync } from 'node:fs';
import { EMBED_DEPTH } from '../../compiler/query/embeds.ts';

export interface RequestLimits {
  /** Bytes of a request body (413). */
  maxBodyBytes: number;
  /** Members of any one object, or elements of any one array, in a JSON body (413). */
  maxJsonMembers: number;
  /** Operations in one batch, and records in one bulk create (413). */
  maxBatchOperations: number;
  /** Bytes of the operations' response bodies in one batch answer (413, the batch rolled back, as they pass it). */
  maxBatchResponseBytes: number;
  /** Filter terms in one query string (400). */
  maxFilters: number;
  /** Conditions and groups in one search `where` tree (400). */
  maxFilterNodes: number;
  /** Bytes of the request line and headers together (431); Node's own limit is 16 KB. */
  maxHeaderBytes: number;
  /** Milliseconds a client has to send the request line and headers (408 past it). */
  headersTimeoutMs: number;
  /** Milliseconds a client has to send the whole request, body included (408 past it). */
  requestTimeoutMs: number;
  /** Connections one client address may hold open at once (429, and closed, past it; a trusted proxy's are not counted). */
  maxConnectionsPerClient: number;
  /** Connections the gateway holds open at once, from every address (503, and closed, past it): below the open-file limit. */
  maxConnections: number;
  /** Requests one caller may send in RATE_LIMIT_WINDOW_SECONDS (429 past it); 0: no limit. */
  rateLimitRequests: number;
  /** The window of RATE_LIMIT_REQUESTS, in seconds. */
  rateLimitWindowSeconds: number;
  /** Milliseconds a request's statement may run (503 with Retry-After past it). */
  statementTimeoutMs: number;
  /** Milliseconds a request may wait for a row lock another request holds (503 with Retry-After). */
  lockTimeoutMs: number;
  /** Connections the gateway opens to each database (the primary, and each replica). */
  poolMax: number;
  /** Connections one caller may hold at once for statements other than reads and writes of one row (429 past POOL_TIMEOUT_MS). */
  poolCallerMax: number;
  /** Places on one connection for statements on one row by its key, each sent behind the last (a read takes one, a write WRITE_PLACES; 1: one statement per connection). */
  poolPipeline: number;
  /** Milliseconds a request may wait for a free connection (503 with Retry-After past it). */
  poolTimeoutMs: number;
  /** Milliseconds SIGTERM waits for the requests in flight before the gateway closes their connections. */
  shutdownGraceMs: number;
  /** Seconds the answer to a write with an Idempotency-Key is kept for the caller's retries. */
  idempotencyTtlSeconds: number;
  /** Seconds a row of the change log (lib.changes) is kept for streams resuming after a disconnect. */
  eventsRetentionSeconds: number;
  /** Change streams one caller (a token's `sub`, else an anonymous IP) may hold open at once (429 past it). */
  maxStreamsPerCaller: number;
  /** Milliseconds between heartbeat comments on an open change stream. */
  eventsHeartbeatMs: number;
  /** Milliseconds between looks at the change log while streams are open, besides the wake-ups of LISTEN/NOTIFY. */
  eventsPollMs: number;
  /** Bytes of events a stream's client may leave unread before the stream is closed (it resumes with Last-Event-ID). */
  eventsBufferBytes: number;
  /** Milliseconds one webhook POST may take, answer included, before it counts as failed and is retried. */
  webhookTimeoutMs: number;
  /** Seconds a webhook delivery is retried for (from its creation or redelivery) before it is marked failed. */
  webhookRetrySeconds: number;
  /** Milliseconds before a webhook delivery's first retry; each further one waits twice as long (an hour at most). */
  webhookBackoffMs: number;
  /** Webhook POSTs one gateway has in flight at once for each webhook (a hanging receiver holds up only its own). */
  webhookConcurrency: number;
  /** Seconds delivered and failed webhook deliveries stay in lib.webhook_deliveries (for redelivery and inspection). */
  webhookKeepSeconds: number;
  /** Levels of embeds one include path may nest (`site.region` is two; 400 past it). */
  maxEmbedDepth: number;
  /** Records an embedded manyToMany list holds at most (the first by key). */
  maxEmbedRows: number;
}

/** Environment variable and default of each limit. */
export const LIMITS: Record<keyof RequestLimits, { env: string; fallback: number; max?: number }> = {
  maxBodyBytes: { env: 'MAX_BODY_BYTES', fallback: 1024 * 1024 },
  maxJsonMembers: { env: 'MAX_JSON_MEMBERS', fallback: 1000 },
  maxBatchOperations: { env: 'MAX_BATCH_OPERATIONS', fallback: 100 },
  // A batch's answer is held in memory whole (each operation's body as the text it wrote, parsed only where a later
  // operation refers to it) and kept for an Idempotency-Key: 16 times the default MAX_BODY_BYTES gives 100 operations
  // 160 KB of answer each; reads that want more can page.
  maxBatchResponseBytes: { env: 'MAX_BATCH_RESPONSE_BYTES', fallback: 16 * 1024 * 1024 },
  maxFilters: { env: 'MAX_FILTERS', fallback: 50 },
  maxFilterNodes: { env: 'MAX_FILTER_NODES', fallback: 200 },
  maxHeaderBytes: { env: 'MAX_HEADER_BYTES', fallback: 16 * 1024 },
  headersTimeoutMs: { env: 'HEADERS_TIMEOUT_MS', fallback: 20_000 },
  requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', fallback: 300_000 },
  // Browsers open 6 per host; a load test from one host rarely needs more than a few hundred.
  maxConnectionsPerClient: { env: 'MAX_CONNECTIONS_PER_CLIENT', fallback: 256 },
  // Unset: three quarters of the open-file limit (connectionsWithin), so connections never take the files the pools need.
  maxConnections: { env: 'MAX_CONNECTIONS', fallback: connectionsWithin(openFileLimit()) },
  rateLimitRequests: { env: 'RATE_LIMIT_REQUESTS', fallback: 0 }, // off unless set
  rateLimitWindowSeconds: { env: 'RATE_LIMIT_WINDOW_SECONDS', fallback: 10 },
  statementTimeoutMs: { env: 'STATEMENT_TIMEOUT_MS', fallback: 10_000 },
  lockTimeoutMs: { env: 'LOCK_TIMEOUT_MS', fallback: 3_000 },
  poolMax: { env: 'POOL_MAX', fallback: 10 },
  // Unset: half of POOL_MAX, rounded up (limitsFromEnv), so one caller leaves the other half to everyone else.
  poolCallerMax: { env: 'POOL_CALLER_MAX', fallback: 5 },
  poolPipeline: { env: 'POOL_PIPELINE', fallback: 16, max: 100 }, // postgres.js sends at most 100 on one connection
  poolTimeoutMs: { env: 'POOL_TIMEOUT_MS', fallback: 3_000 },
  shutdownGraceMs: { env: 'SHUTDOWN_GRACE_MS', fallback: 10_000 },
  idempotencyTtlSeconds: { env: 'IDEMPOTENCY_TTL_SECONDS', fallback: 24 * 60 * 60 },
  eventsRetentionSeconds: { env: 'EVENTS_RETENTION_SECONDS', fallback: 24 * 60 * 60 },
  maxStreamsPerCaller: { env: 'EVENTS_MAX_STREAMS_PER_CALLER', fallback: 10 },
  eventsHeartbeatMs: { env: 'EVENTS_HEARTBEAT_MS', fallback: 15_000 },
  eventsPollMs: { env: 'EVENTS_POLL_MS', fallback: 1000 },
  eventsBufferBytes: { env: 'EVENTS_BUFFER_BYTES', fallback: 1024 * 1024 },
  webhookTimeoutMs: { env: 'WEBHOOK_TIMEOUT_MS', fallback: 10_000 },
  webhookRetrySeconds: { env: 'WEBHOOK_RETRY_SECONDS', fallback: 24 * 60 * 60 },
  webhookBackoffMs: { env: 'WEBHOOK_BACKOFF_MS', fallback: 5_000 },
  webhookConcurrency: { env: 'WEBHOOK_CONCURRENCY', fallback: 8 },
  webhookKeepSeconds: { env: 'WEBHOOK_KEEP_SECONDS', fallback: 7 * 24 * 60 * 60 },
  maxEmbedDepth: { env: 'EMBED_MAX_DEPTH', fallback: EMBED_DEPTH, max: EMBED_DEPTH }, // the SQL holds no more
  maxEmbedRows: { env: 'EMBED_MAX_ROWS', fallback: 100 },
};

/**
 * The open-file limit of this process (`ulimit -n`): its soft limit, which Node itself raised to the hard limit as it
 * started, read from /proc/self/limits; undefined where that cannot be read (not Linux).
 */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  try {
    const n = Number(/^Max open files\s+(\d+)/m.exec(read())?.[1]);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * MAX_CONNECTIONS when unset: three quarters of the open-file limit (of 1024 where it is unknown). The other quarter
 * is for the database pools, files, the log, and connections past the cap while they are answered.
 */
export function connectionsWithin(openFiles: number | undefined): number {
  return Math.max(1, Math.floor((openFiles ?? 1024) * 3 / 4));
}

export const DEFAULT_LIMITS = Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, v.fallback])) as unknown as RequestLimits;

/** The limits from the environment; a value that is not a positive whole number stops the start. */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): RequestLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const [key, { env: name, max }] of Object.entries(LIMITS) as Array<[keyof RequestLimits, { env: string; max?: number }]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
    if (max !== undefined && n > max) throw new Error(`${name} is at most ${max}, got ${n}`);
    out[key] = n;
  }
  if (!env[LIMITS.poolCallerMax.env]) out.poolCallerMax = Math.ceil(out.poolMax / 2);
  const openFiles = openFileLimit();
  if (openFiles !== undefined && out.maxConnections >= openFiles) {
    throw new Error(`${LIMITS.maxConnections.env} (${out.maxConnections}) must be below the open-file limit (${openFiles}), which the database pools and files share; `
      + 'raise the limit (ulimit -n, systemd LimitNOFILE, docker --ulimit nofile) or lower the cap');
  }
  if (out.headersTimeoutMs > out.requestTimeoutMs) {
    throw new Error(`${LIMITS.headersTimeoutMs.env} (${out.headersTimeoutMs}) may not exceed ${LIMITS.requestTimeoutMs.env} (${out.requestTimeoutMs}): the headers are part of the request`);
  }
  return out;
}
