// Deletes what lib.file_outbox queues (replaced and deleted files, attached tmp/ objects, swept intents)
// after commit: drained after a write that queued files and on an interval, by any number of gateways.
// Its statements wait for a place of the pool's gate like requests do, one at a time.
import { gated, type Target } from '../pg/pools.ts';
import type { Storage } from './storage.ts';

export interface DrainReport { deleted: number; failed: number }

export class Outbox {
  #queued: Promise<DrainReport> | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly target: Target,
    private readonly storage: Storage,
    private readonly clock: () => number,
    private readonly log: (message: string, err: unknown) => void,
  ) {}

  /** One pass over the due deletions, started after any pass already running (calls made meanwhile share it). */
  drain(): Promise<DrainReport> {
    if (this.#queued) return this.#queued;
    const pass = this.#tail.then(() => {
      this.#queued = undefined;
      return this.#pass();
    });
    this.#queued = pass;
    this.#tail = pass.catch(() => {});
    return pass;
  }

  /** A drain in the background (after a write); failures are logged, the interval tries again. */
  kick(): void {
    this.drain().catch((err) => this.log('file outbox drain failed', err));
  }

  /** Intents never attached and past their window: their tmp/ objects go to the outbox, then a drain. */
  async sweep(): Promise<number> {
    const [row] = await gated(this.target, (sql) => sql`select lib.files_sweep() as n`);
    const n = Number(row?.n ?? 0);
    if (n > 0) await this.drain();
    return n;
  }

  start(drainEveryMs: number, sweepEveryMs: number): void {
    if (this.#timers.length) return;
    const every = (ms: number, fn: () => Promise<unknown>, what: string) =>
      this.#timers.push(setInterval(() => void fn().catch((err) => this.log(what, err)), ms).unref());
    every(drainEveryMs, () => this.drain(), 'file outbox drain failed');
    every(sweepEveryMs, () => this.sweep(), 'upload sweep failed');
  }

  /**
   * Stops the timers and waits for the pass under way, `waitMs` at most: what it leaves stays queued in the
   * database for the next gateway (a storage service that stalls does not hold a shutdown).
   */
  async stop(waitMs = Infinity): Promise<void> {
    this.#timers.forEach(clearInterval);
    this.#timers = [];
    if (!Number.isFinite(waitMs)) { await this.#tail; return; }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#tail, new Promise<void>((r) => { timer = setTimeout(r, waitMs).unref(); })]);
    clearTimeout(timer);
  }

  async #pass(): Promise<DrainReport> {
    const report: DrainReport = { deleted: 0, failed: 0 };
    for (;;) {
      const now = new Date(this.clock());
      const due = await gated(this.target, (sql) => sql<Array<{ id: string; location: string }>>`select * from lib.files_due(${now}, 50)`);
      const done: string[] = [], failed: Array<{ id: string; message: string }> = [];
      await Promise.all(due.map(async ({ id, location }) => {
        try {
          await this.storage.delete(location);
          done.push(id);
        } catch (err) {
          failed.push({ id, message: String((err as Error)?.message ?? err) });
        }
      }));
      report.deleted += done.length;
      report.failed += failed.length;
      // Every failure's retry in one statement: an outage fails the whole batch, 50 rows at a time.
      if (failed.length) {
        await gated(this.target, (sql) => sql`select lib.files_retry(f.id, f.message, ${now})
          from unnest(${failed.map((f) => f.id)}::bigint[], ${failed.map((f) => f.message)}::text[]) as f(id, message)`);
      }
      // The rows go only now that their objects are gone.
      if (done.length) await gated(this.target, (sql) => sql`select lib.files_done(${done}::bigint[])`);
      if (due.length < 50) return report;
    }
  }
}
