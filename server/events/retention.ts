// Prunes the change log (lib.changes) past EVENTS_RETENTION_SECONDS from every gateway on a timer: short
// transactions of PRUNE_BATCH rows, oldest first, so writes (which only append) never wait on them.
import { gated, type Target } from '../pg/pools.ts';

/** Rows one pruning statement removes at most; a full batch is followed by another at once. */
export const PRUNE_BATCH = 1000;
/** Milliseconds between pruning passes. */
export const PRUNE_EVERY_MS = 60_000;

export class ChangeLogRetention {
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<number> | undefined;

  constructor(
    private readonly target: Target,
    private readonly retentionSeconds: number,
    private readonly log: (message: string, err: unknown) => void,
  ) {}

  /** One pass: batches until a short one (one gateway prunes at a time; the others' passes remove nothing). */
  prune(): Promise<number> {
    this.#pass ??= (async () => {
      let total = 0;
      for (;;) {
        const [row] = await gated(this.target, (sql) => sql`select lib.changes_prune(${this.retentionSeconds}, ${PRUNE_BATCH}) as n`);
        const n = Number(row?.n ?? 0);
        total += n;
        if (n < PRUNE_BATCH) return total;
      }
    })().finally(() => { this.#pass = undefined; });
    return this.#pass;
  }

  start(everyMs = PRUNE_EVERY_MS): void {
    this.#timer ??= setInterval(() => void this.prune().catch((err) => this.log('change log pruning failed', err)), everyMs).unref();
  }

  /** Stops the timer and waits for the pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pass?.catch(() => {});
  }
}
