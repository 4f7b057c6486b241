// Sends the model's webhooks from every gateway (design 9): copies new log rows into lib.webhook_deliveries, takes
// due deliveries (leased, SKIP LOCKED: no other gateway sends them meanwhile), POSTs them and records the outcome,
// retrying with exponential backoff until WEBHOOK_RETRY_SECONDS has passed. Holds no connection while a POST waits.
import type { Manifest } from '../../compiler/manifest/types.ts';
import { gated, type Target } from '../pg/pools.ts';
import { webhookPayload, type Delivery } from './payload.ts';
import { Sender, type Attempt } from './send.ts';
import type { WebhookTarget } from './settings.ts';

export interface WebhookSettings {
  timeoutMs: number;
  retrySeconds: number;
  backoffMs: number;
  concurrency: number;
  keepSeconds: number;
}

export type Outcome = 'delivered' | 'retried' | 'failed';

export interface WorkerOptions {
  /** The time of claims, signatures and retries (default Date.now). */
  clock?: () => number;
  /** A pass that failed (the database), or a delivery marked failed. */
  log: (message: string, err: unknown) => void;
  /** Each attempt's outcome (/metrics). */
  counted?: (webhook: string, outcome: Outcome) => void;
  /** Milliseconds between passes that need no wake-up (retries coming due, writers that ended without a notify). */
  everyMs?: number;
}

/** Log rows one enqueue statement reads at most per webhook. */
const ENQUEUE_BATCH = 500;
/** The longest wait between two retries. */
export const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** A claim's lease past the POST's time limit, so a slow event loop does not let another gateway send it too. */
const LEASE_MARGIN_MS = 30_000;
/** Deliveries removed per sweep statement; and how often the sweep runs. */
const SWEEP_BATCH = 1000;
const SWEEP_EVERY_MS = 60_000;

export class WebhookWorker {
  readonly #targets: Map<string, WebhookTarget>;
  readonly #sender: Sender;
  readonly #clock: () => number;
  readonly #stop = new AbortController();
  #stopping = false;
  readonly #inFlight = new Set<Promise<void>>();
  /** Posts in flight by webhook. */
  readonly #busy = new Map<string, number>();
  #timers: NodeJS.Timeout[] = [];
  /** The wake-up at this gateway's earliest retry, and when that is. */
  #retry: { timer: NodeJS.Timeout; at: number } | undefined;
  #retryAts: number[] = [];
  #unlisten: (() => Promise<void>) | undefined;
  #enqueuing: Promise<void> | undefined;
  #enqueueAgain = false;
  #filling: Promise<void> | undefined;
  #fillAgain = false;

  constructor(
    private readonly target: Target,
    private readonly manifest: Manifest,
    targets: WebhookTarget[],
    private readonly settings: WebhookSettings,
    private readonly o: WorkerOptions,
  ) {
    this.#targets = new Map(targets.map((t) => [t.name, t]));
    this.#clock = o.clock ?? Date.now;
    this.#sender = new Sender(settings.timeoutMs, this.#clock);
  }

  /** Posts in flight now. */
  get inFlight(): number { return this.#inFlight.size; }

  /**
   * Wakes on the change log's channel (`listen`: postgres.js's listen of the gateway's client) and on a timer, and
   * sweeps old deliveries; then a first pass.
   */
  async start(listen?: (channel: string, onNotify: () => void) => Promise<{ unlisten(): Promise<void> }>): Promise<void> {
    const every = (ms: number, run: () => Promise<unknown>, what: string) =>
      this.#timers.push(setInterval(() => void run().catch((err) => this.o.log(what, err)), ms).unref());
    every(this.o.everyMs ?? 1000, () => this.wake(), 'webhook pass failed');
    every(SWEEP_EVERY_MS, () => this.sweep(), 'webhook sweep failed');
    if (listen) {
      try {
        const sub = await listen('lib_changes', () => void this.wake().catch((err) => this.o.log('webhook pass failed', err)));
        this.#unlisten = () => sub.unlisten();
      } catch (err) {
        this.o.log('webhook listen failed (passes run on the timer only)', err); // a pooler that refuses LISTEN
      }
    }
    void this.wake().catch((err) => this.o.log('webhook pass failed', err));
  }

  /** Copies what the log holds for the webhooks, then sends what is due: after a commit's notify, and on the timer. */
  async wake(): Promise<void> {
    await this.enqueue();
    await this.fill();
  }

  /** New log rows into deliveries, batch by batch (one run at a time; a call meanwhile runs it once more after). */
  enqueue(): Promise<void> {
    if (this.#enqueuing) { this.#enqueueAgain = true; return this.#enqueuing; }
    return this.#enqueuing = this.#single(() => { this.#enqueuing = undefined; }, () => this.#enqueueAgain, (v) => { this.#enqueueAgain = v; }, async () => {
      for (;;) {
        const [row] = await gated(this.target, (sql) => sql`select * from lib.webhook_enqueue(${ENQUEUE_BATCH})`);
        for (const name of (row?.behind ?? []) as string[]) {
          this.o.log('webhook behind the change log', Object.assign(new Error(`${name}: no gateway copied its changes for longer than `
            + 'EVENTS_RETENTION_SECONDS; changes pruned from the log meanwhile were not sent'), { code: 'E_WEBHOOK_BEHIND' }));
        }
        if (!row?.more) break;
      }
    });
  }

  /**
   * Takes due deliveries of each webhook while it has room for more posts in flight (WEBHOOK_CONCURRENCY per webhook, so
   * a receiver that hangs holds up its own deliveries only).
   */
  fill(): Promise<void> {
    if (this.#filling) { this.#fillAgain = true; return this.#filling; }
    return this.#filling = this.#single(() => { this.#filling = undefined; }, () => this.#fillAgain, (v) => { this.#fillAgain = v; }, async () => {
      for (const name of this.#targets.keys()) {
        while (!this.#stopping) {
          const room = this.settings.concurrency - (this.#busy.get(name) ?? 0);
          if (room <= 0) break;
          const claimed = await this.#claim(name, room);
          for (const d of claimed) this.#send(d);
          if (claimed.length < room) break;
        }
      }
    });
  }

  /**
   * Runs `pass`, and again while a call came meanwhile (`again`); `done` clears the caller's promise in the same step as
   * the last look at `again`, so no call falls between them unanswered.
   */
  async #single(done: () => void, again: () => boolean, setAgain: (v: boolean) => void, pass: () => Promise<void>): Promise<void> {
    await null; // the caller keeps this promise before anything runs
    try {
      do {
        setAgain(false);
        await pass();
      } while (again() && !this.#stopping);
    } finally {
      done();
    }
  }

  /** Removes delivered and failed deliveries past WEBHOOK_KEEP_SECONDS. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const [row] = await gated(this.target, (sql) => sql`select lib.webhook_sweep(${this.settings.keepSeconds}, ${SWEEP_BATCH}) as n`);
      const n = Number(row?.n ?? 0);
      total += n;
      if (n < SWEEP_BATCH) return total;
    }
  }

  /**
   * Stops taking deliveries and waits for the posts in flight, `waitMs` at most; those still waiting then are aborted
   * and stay pending in the database, sent again by a gateway once their lease ends.
   */
  async stop(waitMs: number): Promise<void> {
    this.#stopping = true;
    this.#timers.forEach(clearInterval);
    this.#timers = [];
    clearTimeout(this.#retry?.timer);
    await this.#unlisten?.().catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const settled = Promise.allSettled([this.#enqueuing, this.#filling, ...this.#inFlight]);
    await Promise.race([settled, new Promise<void>((r) => { timer = setTimeout(r, waitMs).unref(); })]);
    clearTimeout(timer);
    this.#stop.abort();
    await Promise.allSettled([...this.#inFlight]);
  }

  async #claim(webhook: string, room: number): Promise<Delivery[]> {
    const now = new Date(this.#clock());
    const lease = this.settings.timeoutMs + LEASE_MARGIN_MS;
    return [...await gated(this.target, (sql) => sql<Delivery[]>`
      select * from lib.webhook_claim(${[webhook]}::text[], ${now}, ${room}, ${lease})`)];
  }

  #send(d: Delivery): void {
    const job = (async () => {
      let attempt: Attempt;
      try {
        const body = JSON.stringify(webhookPayload(this.manifest, d));
        attempt = await this.#sender.post(this.#targets.get(d.webhook)!, d.change_id, body, this.#stop.signal);
      } catch (err) {
        attempt = { error: String((err as Error)?.message ?? err) };
      }
      if (this.#stop.signal.aborted && 'error' in attempt) return; // left pending: its lease ends, another gateway sends it
      await this.#record(d, attempt);
    })().catch((err) => this.o.log('webhook outcome not recorded', err)).finally(() => {
      this.#inFlight.delete(job);
      this.#busy.set(d.webhook, this.#busy.get(d.webhook)! - 1);
      if (!this.#stopping) void this.fill().catch((err) => this.o.log('webhook pass failed', err));
    });
    this.#inFlight.add(job);
    this.#busy.set(d.webhook, (this.#busy.get(d.webhook) ?? 0) + 1);
  }

  async #record(d: Delivery, attempt: Attempt): Promise<void> {
    const now = this.#clock();
    const ok = 'status' in attempt && attempt.status >= 200 && attempt.status < 300;
    const next = ok ? undefined : now + this.#backoff(d.attempts);
    const failed = next !== undefined && next > d.retry_from.getTime() + this.settings.retrySeconds * 1000;
    const status = ok ? 'delivered' : failed ? 'failed' : 'pending';
    const code = 'status' in attempt ? attempt.status : null;
    const error = ok ? null : 'error' in attempt ? attempt.error : `the receiver answered ${attempt.status}`;
    const retryAt = status === 'pending' ? new Date(next!) : null;
    await gated(this.target, (sql) => sql`select lib.webhook_record(${d.id}, ${d.attempts}, ${status}, ${code}::int, ${error}::text,
      ${retryAt}::timestamptz, ${new Date(now)})`);
    if (status === 'pending') this.#wakeAt(next!);
    this.o.counted?.(d.webhook, ok ? 'delivered' : failed ? 'failed' : 'retried');
    if (failed) {
      this.o.log('webhook delivery failed', Object.assign(new Error(`${d.webhook}: delivery ${d.id} (change ${d.change_id}) failed after ${d.attempts} attempts: ${error}`),
        { code: 'E_WEBHOOK_FAILED' }));
    }
  }

  /**
   * A pass when each retry this gateway scheduled comes due (one timer, at the earliest), so retries keep their backoff
   * whatever the pass timer; another gateway may take them first.
   */
  #wakeAt(at: number): void {
    if (this.#stopping) return;
    this.#retryAts.push(at);
    if (this.#retry && this.#retry.at <= at) return;
    clearTimeout(this.#retry?.timer);
    const timer = setTimeout(() => {
      this.#retry = undefined;
      const now = this.#clock();
      const later = this.#retryAts.filter((t) => t > now);
      this.#retryAts = [];
      for (const t of later) this.#wakeAt(t);
      void this.fill().catch((err) => this.o.log('webhook pass failed', err));
    }, Math.max(0, at - this.#clock())).unref();
    this.#retry = { timer, at };
  }

  /** The wait after the `attempts`-th failure: WEBHOOK_BACKOFF_MS doubled each time, an hour at most, less up to a fifth. */
  #backoff(attempts: number): number {
    const full = Math.min(this.settings.backoffMs * 2 ** Math.min(attempts - 1, 30), MAX_BACKOFF_MS);
    return Math.round(full * (1 - Math.random() / 5));
  }
}
