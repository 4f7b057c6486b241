// Admission to one pool's connections: a request waits in line (503 past POOL_TIMEOUT_MS) for a place. Statements
// on one row by its key may queue on one connection behind each other (POOL_PIPELINE); nothing waits behind others;
// one caller holds at most POOL_CALLER_MAX connections for other statements, so it cannot take them all.
import type { Sql } from 'postgres';
import { ApiError, busy } from '../problem/types.ts';

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

interface Waiter {
  use: Use;
  caller: string | undefined;
  admit: (lane: Lane) => void;
  /** It waited while its caller held its share of connections (so a timeout is its caller's, 429). */
  heldBack?: boolean;
}

export class Gate {
  readonly #lanes: Lane[];
  readonly #line: Waiter[] = [];
  /** Connections each caller holds for `close` and `own` statements (`share` ones are short and not counted). */
  readonly #held = new Map<string, number>();

  /**
   * `clients`: one per connection, tried in order so the first ones stay busy and the others idle (a client
   * connects on its first statement). `depth`: statements sent on one connection at most (1: none wait behind another).
   * `callerMax`: connections one caller may hold at once for `close` and `own` statements (POOL_CALLER_MAX).
   */
  constructor(clients: Sql[], readonly depth: number, private readonly timeoutMs: number, readonly callerMax = clients.length) {
    this.#lanes = clients.map((sql) => ({ sql, starts: [], open: true }));
  }

  /** Connections the pool may open (POOL_MAX). */
  get max(): number { return this.#lanes.length; }
  /** Connections with a statement on them. */
  get inUse(): number { return this.#lanes.reduce((n, l) => n + (l.starts.length > 0 ? 1 : 0), 0); }
  get waiting(): number { return this.#line.length; }

  /** Connections `caller` holds now for `close` and `own` statements. */
  held(caller: string): number { return this.#held.get(caller) ?? 0; }

  /**
   * Runs `work` on a connection `use` may take, after those already waiting and when one may. `caller` (who sent
   * the request: server/request/caller.ts) is held to its share; without one, the statement is not counted.
   */
  async run<T>(use: Use, work: (sql: Sql) => Promise<T>, caller?: string): Promise<T> {
    const counted = use !== 'share' ? caller : undefined;
    const lane = (this.#line.length === 0 ? this.#place(use, counted) : undefined) ?? await this.#wait(use, counted);
    try {
      return await work(lane.sql);
    } finally {
      lane.starts.shift();
      if (lane.starts.length === 0) lane.open = true;
      if (counted !== undefined) this.#release(counted);
      this.#admitWaiting();
    }
  }

  #release(caller: string): void {
    const left = this.held(caller) - 1;
    if (left > 0) this.#held.set(caller, left);
    else this.#held.delete(caller);
  }

  /** Whether the caller's share is taken (so its statement waits while others' go ahead). */
  #atShare(caller: string | undefined): boolean {
    return caller !== undefined && this.held(caller) >= this.callerMax;
  }

  #fits(lane: Lane, use: Use, now: number): boolean {
    const n = lane.starts.length;
    if (n === 0) return true;
    return use !== 'own' && lane.open && n < this.depth && now - lane.starts[0]! < STALE_MS;
  }

  /** Takes a place for `use` on the first connection that has one, within the caller's share. */
  #place(use: Use, caller: string | undefined): Lane | undefined {
    if (this.#atShare(caller)) return undefined;
    const now = performance.now();
    const lane = this.#lanes.find((l) => this.#fits(l, use, now));
    if (!lane) return undefined;
    lane.starts.push(now);
    if (use !== 'share') lane.open = false;
    if (caller !== undefined) this.#held.set(caller, this.held(caller) + 1);
    return lane;
  }

  #wait(use: Use, caller: string | undefined): Promise<Lane> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        use,
        caller,
        admit: (lane) => {
          clearTimeout(timer);
          resolve(lane);
        },
      };
      const timer = setTimeout(() => {
        this.#line.splice(this.#line.indexOf(waiter), 1);
        this.#admitWaiting(); // those it held back may fit now
        reject(waiter.heldBack
          ? new ApiError('tooManyRequests', `This caller's other requests held its share of the database connections (POOL_CALLER_MAX: ${this.callerMax}) `
            + `for POOL_TIMEOUT_MS (${this.timeoutMs} ms); send fewer at once.`, { headers: { 'Retry-After': '1' } })
          : busy(`No database connection became free within POOL_TIMEOUT_MS (${this.timeoutMs} ms); try again.`));
      }, this.timeoutMs);
      this.#line.push(waiter);
      this.#admitWaiting(); // only waiters held to their caller's share may be ahead of it
    });
  }

  /**
   * First come, first served among callers within their share: the first such waiter goes first, and those behind
   * it wait while it cannot. A waiter whose caller holds its share is passed over, so others' requests go ahead.
   */
  #admitWaiting(): void {
    for (let i = 0; i < this.#line.length;) {
      const waiter = this.#line[i]!;
      if (this.#atShare(waiter.caller)) {
        waiter.heldBack = true;
        i++;
        continue;
      }
      const lane = this.#place(waiter.use, waiter.caller);
      if (!lane) return;
      this.#line.splice(i, 1);
      waiter.admit(lane);
    }
  }
}
