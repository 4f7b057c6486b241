// Admission to one pool's connections: a request waits in line (503 past POOL_TIMEOUT_MS) for a place. Statements
// on one row by its key may queue on one connection behind each other (POOL_PIPELINE places, a write taking two);
// nothing waits behind others; one caller holds at most POOL_CALLER_MAX connections for other statements.
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
/**
 * The places of a connection's POOL_PIPELINE a keyed write takes (a read takes one). A write costs PostgreSQL
 * several times a read (triggers, indexes, WAL), so writes queued on one backend stop using the server's other
 * cores sooner: in the bench on 2 cores, PATCH ran as fast 2, 4 or 8 deep and 9% slower 16 deep, where reads by id
 * ran 25 to 30% faster 16 deep than 8 (fewer backend wake-ups and socket writes for each).
 */
export const WRITE_PLACES = 2;

interface Lane {
  sql: Sql;
  /** When each statement on it was sent, oldest first, and the places each takes. */
  starts: number[];
  places: number[];
  /** The places its statements take, in all. */
  taken: number;
  /** Whether more may be sent behind them (all of them `share`, or none). */
  open: boolean;
}

interface Waiter {
  use: Use;
  /** Who sent it (held to its share of waiting places, and, for `close` and `own`, of connections). */
  caller: string | undefined;
  /** Arrival order across the two lines. */
  seq: number;
  /** Of a connection's depth, what it takes. */
  places: number;
  admit: (lane: Lane) => void;
  /** It waited while its caller held its share of connections (so a timeout is its caller's, 429). */
  heldBack?: boolean;
}

/**
 * Connections kept for `share` statements (reads and writes of one row by its key): `close` and `own` ones together
 * hold at most POOL_MAX minus these, so a few callers' long lists or batches never leave a read by id without one.
 */
export const reservedForKeyed = (max: number): number => Math.floor(max / 5);
/** Requests one caller may have waiting for a connection, per POOL_MAX connection: past it, 429 at once. */
export const WAITING_PER_CALLER = 10;
/** Requests the whole line holds, per POOL_MAX connection: past it, 503 at once (the line's cost stays bounded). */
export const WAITING_AT_MOST = 50;

export class Gate {
  readonly #lanes: Lane[];
  /** Waiting `close` and `own` statements, and waiting `share` ones, each in arrival order. */
  readonly #longs: Waiter[] = [];
  readonly #shares: Waiter[] = [];
  #seq = 0;
  /** Connections each caller holds for `close` and `own` statements (`share` ones are short and not counted). */
  readonly #held = new Map<string, number>();
  /** Requests each caller has waiting. */
  readonly #waitingBy = new Map<string, number>();
  /** `close` and `own` statements running, and how many may (POOL_MAX less those reserved for `share`). */
  #long = 0;
  readonly #longMax: number;

  /**
   * `clients`: one per connection, tried in order so the first ones stay busy and the others idle (a client
   * connects on its first statement). `depth`: places on one connection (POOL_PIPELINE; 1: nothing waits behind another).
   * `callerMax`: connections one caller may hold at once for `close` and `own` statements (POOL_CALLER_MAX).
   * `now`: the clock STALE_MS is judged by, in milliseconds (a test's own decides when a statement has run that long).
   */
  constructor(clients: Sql[], readonly depth: number, private readonly timeoutMs: number, readonly callerMax = clients.length,
    private readonly now: () => number = () => performance.now()) {
    this.#lanes = clients.map((sql) => ({ sql, starts: [], places: [], taken: 0, open: true }));
    this.#longMax = clients.length - reservedForKeyed(clients.length);
  }

  /** Connections the pool may open (POOL_MAX). */
  get max(): number { return this.#lanes.length; }
  /** Connections with a statement on them. */
  get inUse(): number { return this.#lanes.reduce((n, l) => n + (l.starts.length > 0 ? 1 : 0), 0); }
  get waiting(): number { return this.#longs.length + this.#shares.length; }

  /** Connections `caller` holds now for `close` and `own` statements. */
  held(caller: string): number { return this.#held.get(caller) ?? 0; }

  /**
   * Runs `work` on a connection `use` may take, after those already waiting and when one may. `caller` (who sent
   * the request: server/request/caller.ts) is held to its share; without one, the statement is not counted.
   * `places`: of the connection's depth, what a `share` statement takes (WRITE_PLACES for a write).
   */
  async run<T>(use: Use, work: (sql: Sql) => Promise<T>, caller?: string, places = 1): Promise<T> {
    const counted = use !== 'share' ? caller : undefined;
    // Waiting `close` and `own` statements are ahead of a `share` one only while the budget lets them run.
    const ahead = use === 'share' ? this.#shares.length + (this.#long < this.#longMax ? this.#longs.length : 0) : this.#longs.length;
    const lane = (ahead === 0 ? this.#place(use, counted, places) : undefined) ?? await this.#wait(use, caller, places);
    try {
      return await work(lane.sql);
    } finally {
      lane.starts.shift();
      lane.taken -= lane.places.shift()!;
      if (lane.starts.length === 0) lane.open = true;
      if (use !== 'share') this.#long--;
      if (counted !== undefined) this.#release(this.#held, counted);
      this.#admitWaiting();
    }
  }

  #release(counts: Map<string, number>, caller: string): void {
    const left = (counts.get(caller) ?? 0) - 1;
    if (left > 0) counts.set(caller, left);
    else counts.delete(caller);
  }

  /** Whether the caller's share is taken (so its statement waits while others' go ahead). */
  #atShare(caller: string | undefined): boolean {
    return caller !== undefined && this.held(caller) >= this.callerMax;
  }

  #fits(lane: Lane, use: Use, places: number, now: number): boolean {
    if (lane.starts.length === 0) return true;
    return use !== 'own' && lane.open && lane.taken + places <= this.depth && now - lane.starts[0]! < STALE_MS;
  }

  /** Takes a place for `use` on the first connection that has one, within the caller's share and the long ones' budget. */
  #place(use: Use, caller: string | undefined, places: number): Lane | undefined {
    if (use !== 'share' && (this.#atShare(caller) || this.#long >= this.#longMax)) return undefined;
    const now = this.now();
    const lane = this.#lanes.find((l) => this.#fits(l, use, places, now));
    if (!lane) return undefined;
    lane.starts.push(now);
    lane.places.push(places);
    lane.taken += places;
    if (use !== 'share') {
      lane.open = false;
      this.#long++;
    }
    if (caller !== undefined) this.#held.set(caller, this.held(caller) + 1);
    return lane;
  }

  #wait(use: Use, caller: string | undefined, places: number): Promise<Lane> {
    const counted = use !== 'share' ? caller : undefined;
    if (caller !== undefined && (this.#waitingBy.get(caller) ?? 0) >= WAITING_PER_CALLER * this.max) {
      return Promise.reject(new ApiError('tooManyRequests', `This caller already has ${WAITING_PER_CALLER * this.max} requests waiting for a database `
        + `connection (${WAITING_PER_CALLER} × POOL_MAX); send fewer at once.`, { headers: { 'Retry-After': '1' } }));
    }
    if (this.waiting >= WAITING_AT_MOST * this.max) {
      return Promise.reject(busy(`${WAITING_AT_MOST * this.max} requests are waiting for a database connection already (${WAITING_AT_MOST} × POOL_MAX); try again.`));
    }
    const line = use === 'share' ? this.#shares : this.#longs;
    if (caller !== undefined) this.#waitingBy.set(caller, (this.#waitingBy.get(caller) ?? 0) + 1);
    return new Promise((resolve, reject) => {
      const leave = () => {
        line.splice(line.indexOf(waiter), 1);
        if (caller !== undefined) this.#release(this.#waitingBy, caller);
      };
      const waiter: Waiter = {
        use,
        places,
        caller: counted,
        seq: this.#seq++,
        admit: (lane) => {
          clearTimeout(timer);
          leave();
          resolve(lane);
        },
      };
      const timer = setTimeout(() => {
        leave();
        this.#admitWaiting(); // those it held back may fit now
        reject(waiter.heldBack
          ? new ApiError('tooManyRequests', `This caller's other requests held its share of the database connections (POOL_CALLER_MAX: ${this.callerMax}) `
            + `for POOL_TIMEOUT_MS (${this.timeoutMs} ms); send fewer at once.`, { headers: { 'Retry-After': '1' } })
          : busy(`No database connection became free within POOL_TIMEOUT_MS (${this.timeoutMs} ms); try again.`));
      }, this.timeoutMs);
      line.push(waiter);
      this.#admitWaiting(); // only waiters held to their caller's share may be ahead of it
    });
  }

  /**
   * First come, first served among callers within their share: the first such waiter goes first, and those behind
   * it wait while it cannot. A waiter whose caller holds its share is passed over, so others' requests go ahead; so
   * are `close` and `own` ones while those running take the connections not reserved, so `share` ones go ahead.
   */
  #admitWaiting(): void {
    for (;;) {
      const long = this.#longs.find((w) => {
        if (!this.#atShare(w.caller)) return true;
        w.heldBack = true;
        return false;
      });
      const share = this.#shares[0];
      const longFirst = long !== undefined && (share === undefined || long.seq < share.seq) && this.#long < this.#longMax;
      const next = longFirst ? long : share;
      if (next === undefined) return;
      const lane = this.#place(next.use, next.caller, next.places);
      if (!lane) return;
      next.admit(lane);
    }
  }
}
