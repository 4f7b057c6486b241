// Prometheus metrics of the gateway (prom-client): requests by route template and status, their
// latency, the database calls in flight; GET /metrics serves them in the text exposition format.
import { Hono } from 'hono';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route template and status.', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  readonly duration = new Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request latency by method, route template and status.', labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry],
  });
  readonly inFlight = new Gauge({ name: 'db_calls_in_flight', help: 'api.dispatch calls waiting for the database (pool in use and waiting).', registers: [this.registry] });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  /** Counts `work` as a database call in flight while it runs. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight.inc();
    try {
      return await work();
    } finally {
      this.inFlight.dec();
    }
  }

  routes(): Hono {
    return new Hono().get('/metrics', async (c) => c.body(await this.registry.metrics(), 200, { 'Content-Type': this.registry.contentType }));
  }
}
