// Prometheus metrics of the gateway (prom-client): requests by route and status, their latency, each pool's connections
// in use and requests waiting, the file outbox's depth, change streams and webhook deliveries; GET /metrics.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { Sql } from 'postgres';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Pool } from '../pg/pools.ts';
import type { StreamObserver } from '../events/streams.ts';
import { ApiError } from '../problem/types.ts';
import { renderProblem } from '../problem/render.ts';
import { resetRowCount } from '../pg/row-count.ts';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route template and status.', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  readonly duration = new Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request latency by method, route template and status.', labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  /** Run before each scrape: observations gathered and not yet counted are counted (server/http/observe.ts). */
  readonly #beforeScrape: Array<() => void> = [];
  beforeScrape(run: () => void): void { this.#beforeScrape.push(run); }

  /** The counter's and histogram's series of each method, route template and status, found once each. */
  readonly #series = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      this.#series.set(key, series = { count: this.requests.labels(labels), time: this.duration.labels(labels) });
    }
    series.count.inc();
    series.time.observe(seconds);
  }

  /** Gauges of each pool (primary, replica1…): connections in use, requests waiting for one, the size. */
  watchPools(pools: Pool[]): void {
    const gauge = (name: string, help: string, read: (p: Pool) => number) => new Gauge({
      name, help, labelNames: ['pool'], registers: [this.registry],
      collect() { for (const p of pools) this.set({ pool: p.name }, read(p)); },
    });
    gauge('db_pool_connections_in_use', 'Database connections with a statement on them, by pool.', (p) => p.gate.inUse);
    gauge('db_pool_requests_waiting', 'Requests waiting in line for a place on a database connection (POOL_TIMEOUT_MS), by pool.', (p) => p.gate.waiting);
    gauge('db_pool_connections_max', 'Connections each pool may open (POOL_MAX).', (p) => p.gate.max);
  }

  /** What the change-stream hub reports: streams open, events sent, and each event's time from its write to its sending. */
  streams(): StreamObserver {
    const open = new Gauge({ name: 'change_streams_open', help: 'Change streams (text/event-stream) open on this gateway.', registers: [this.registry] });
    const sent = new Counter({ name: 'change_stream_events_total', help: 'Events written to change streams (one per stream it reached).', registers: [this.registry] });
    const lag = new Histogram({
      name: 'change_stream_lag_seconds', help: 'Seconds from the write (its transaction\'s start) to the event\'s sending on a stream.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry],
    });
    const pass = new Histogram({
      name: 'change_stream_pass_seconds', help: 'Seconds of each pass of the change-stream hub over the log (a page per table, a statement per group).',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [this.registry],
    });
    return {
      passed: (seconds) => pass.observe(seconds),
      opened: () => open.inc(),
      closed: () => open.dec(),
      sent: (lags) => {
        sent.inc(lags.length);
        for (const l of lags) lag.observe(l);
      },
    };
  }

  /** The file outbox's depth (objects waiting to be deleted), read from the database at each scrape. */
  watchOutbox(sql: Sql, timeoutMs = 1000): void {
    new Gauge({
      name: 'files_outbox_pending', help: 'Storage objects queued for deletion in lib.file_outbox.', registers: [this.registry],
      async collect() {
        const rows = await scrapeQuery(sql, sql`select lib.files_pending()::int as n`, timeoutMs);
        if (rows) this.set(rows[0]!.n as number);
      },
    });
  }

  /** Webhook attempts by webhook and outcome (delivered, retried, failed), counted by this gateway. */
  readonly webhookAttempts = new Counter({
    name: 'webhook_deliveries_sent_total', help: 'Webhook POSTs this gateway made, by webhook and outcome (delivered, retried, failed).',
    labelNames: ['webhook', 'outcome'], registers: [this.registry],
  });

  /** Pending and failed webhook deliveries of each webhook (lib.webhook_deliveries), read from the database at each scrape. */
  watchWebhooks(sql: Sql, timeoutMs = 1000): void {
    // One query a scrape: the first gauge collected starts it, the second takes its answer.
    let shared: ReturnType<typeof scrapeQuery> | undefined;
    const read = (first: boolean) => {
      const rows = first || !shared ? scrapeQuery(sql, sql`select webhook, pending::int, failed::int from lib.webhook_counts()`, timeoutMs) : shared;
      shared = first ? rows : undefined;
      return rows;
    };
    new Gauge({
      name: 'webhook_deliveries_pending', help: 'Webhook deliveries waiting to be sent or retried, by webhook.', labelNames: ['webhook'], registers: [this.registry],
      async collect() { for (const r of await read(true) ?? []) this.set({ webhook: r.webhook as string }, r.pending as number); },
    });
    new Gauge({
      name: 'webhook_deliveries_failed', help: 'Webhook deliveries that got no 2xx within WEBHOOK_RETRY_SECONDS (lib.webhook_redeliver sends them again), by webhook.',
      labelNames: ['webhook'], registers: [this.registry],
      async collect() { for (const r of await read(false) ?? []) this.set({ webhook: r.webhook as string }, r.failed as number); },
    });
  }

  /**
   * GET /metrics; with a guard's `token` (METRICS_TOKEN), only for `Authorization: Bearer <token>` (Prometheus's
   * `authorization` setting): else 401, so a public port does not show routes, status counts and saturation.
   */
  routes(guard?: { token: string; docsUrl: string }): Hono {
    const expected = guard ? createHash('sha256').update(guard.token).digest() : undefined;
    return new Hono().get('/metrics', async (c) => {
      if (guard && expected) {
        const given = /^Bearer +(\S+) *$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
        if (!timingSafeEqual(createHash('sha256').update(given).digest(), expected)) {
          return renderProblem(new ApiError('unauthenticated', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
            { headers: { 'WWW-Authenticate': 'Bearer' } }), { docsUrl: guard.docsUrl, instance: '/metrics' });
        }
      }
      for (const run of this.#beforeScrape) run();
      return c.body(await this.registry.metrics(), 200, { 'Content-Type': this.registry.contentType });
    });
  }
}

/** A scrape's query, cancelled after `timeoutMs`: its rows, or undefined (the gauges keep their last values rather than fail /metrics). */
async function scrapeQuery(sql: Sql, query: ReturnType<Sql>, timeoutMs: number): Promise<ReadonlyArray<Record<string, unknown>> | undefined> {
  let cancelled = false;
  const timer = setTimeout(() => { cancelled = true; void query.cancel(); }, timeoutMs);
  try {
    return await query as unknown as ReadonlyArray<Record<string, unknown>>;
  } catch {
    if (cancelled) await resetRowCount(sql);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
