// Admission to one pool's connections: a request waits in line (503 past POOL_TIMEOUT_MS) for a place. Statements
// on one row by its key may queue on one connection behind each other (POOL_PIPELINE); nothing waits behind others.
import type { Sql } from 'postgres';
import { busy } from '../problem/types.ts';

/**
 * How a statement uses its connection.
 * - `share`: a short statement on one row by its key (a read, or a write that waits STALE_MS at most for its
 *   lock: server/query/dispatch.ts): it may be sent on a connection behind others of its kind, so one socket
 *   write carries several and PostgreSQL's backend stays busy rather than waking for each.
 * - `close`: any other single statement (a list may run long, a write may wait out LOCK_TIMEOUT_MS): it may
 *   follow `share` ones on a connection, but nothing is sent behind it.
 * - `own`: a transaction: an idle connection, held until it ends.
 */
export type Use = 'share' | 'close' | 'own';

/** A connection whose oldest statement has waited this long takes no more: its head may be slow, not just busy. */
export const STALE_MS = 5;

interface Lane {
  sql: Sql;
  /** When each statement on it was sent, oldest first. */
  starts: number[];
  /** Whether more may be sent behind them (all of them `share`, or none). */
  open: boolean;
}

interface Waiter { use: Use; admit: (lane: Lane) => void }

export class Gate {
  readonly #lanes: Lane[];
  readonly #line: Waiter[] = [];

  /**
   * `clients`: one per connection, tried in order so the first ones stay busy and the others idle (a client
   * connects on its first statement). `depth`: statements sent on one connection at most (1: none wait behind another).
   */
  constructor(clients: Sql[], readonly depth: number, private readonly timeoutMs: number) {
    this.#lanes = clients.map((sql) => ({ sql, starts: [], open: true }));
  }

  /** Connections the pool may open (POOL_MAX). */
  get max(): number { return this.#lanes.length; }
  /** Connections with a statement on them. */
  get inUse(): number { return this.#lanes.reduce((n, l) => n + (l.starts.length > 0 ? 1 : 0), 0); }
  get waiting(): number { return this.#line.length; }

  /** Runs `work` on a connection `use` may take, after those already waiting and when one may. */
  async run<T>(use: Use, work: (sql: Sql) => Promise<T>): Promise<T> {
    const lane = (this.#line.length === 0 ? this.#place(use) : undefined) ?? await this.#wait(use);
    try {
      return await work(lane.sql);
    } finally {
      lane.starts.shift();
      if (lane.starts.length === 0) lane.open = true;
      this.#admitWaiting();
    }
  }

  #fits(lane: Lane, use: Use, now: number): boolean {
    const n = lane.starts.length;
    if (n === 0) return true;
    return use !== 'own' && lane.open && n < this.depth && now - lane.starts[0]! < STALE_MS;
  }

  /** Takes a place for `use` on the first connection that has one. */
  #place(use: Use): Lane | undefined {
    const now = performance.now();
    const lane = this.#lanes.find((l) => this.#fits(l, use, now));
    if (!lane) return undefined;
    lane.starts.push(now);
    if (use !== 'share') lane.open = false;
    return lane;
  }

  #wait(use: Use): Promise<Lane> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        use,
        admit: (lane) => {
          clearTimeout(timer);
          resolve(lane);
        },
      };
      const timer = setTimeout(() => {
        this.#line.splice(this.#line.indexOf(waiter), 1);
        this.#admitWaiting(); // those it held back may fit now
        reject(busy(`No database connection became free within POOL_TIMEOUT_MS (${this.timeoutMs} ms); try again.`));
      }, this.timeoutMs);
      this.#line.push(waiter);
    });
  }

  /** First come, first served: the head of the line goes first, and those behind it wait while it cannot. */
  #admitWaiting(): void {
    while (this.#line.length > 0) {
      const lane = this.#place(this.#line[0]!.use);
      if (!lane) return;
      this.#line.shift()!.admit(lane);
    }
  }
}
