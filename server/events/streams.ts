// The gateway's change-stream hub (design 9): one LISTEN connection wakes it, and each pass reads the change log once
// per group of streams sharing a claim set, filters and parent (one statement), then writes the group's events out.
import type { Sql } from 'postgres';
import { dispatch, type Call } from '../query/dispatch.ts';
import { gated, type Target } from '../pg/pools.ts';
import { isAfter, parsePosition, startOf, type Position } from './position.ts';
import { ApiError } from '../problem/types.ts';

/** One change as api.<table>_stream returns it: its position, action, record key, ETag, time and record image. */
export interface StreamEvent { id: string; action: string; key: string; etag: string | null; at: string; data: unknown }

/** An event as written to a stream: its position, and its text (`id:`, `event:`, `data:`). */
export interface Frame { position: Position; text: string }

/** One open stream, as the hub sees it (server/events/route.ts makes them). */
export interface Subscriber {
  /** Streams with the same key share one statement per pass: same function, claims, filters, parent and projection. */
  readonly group: string;
  /** api.<table>_stream as this stream's caller; each pass adds the position and the bound to its arguments. */
  readonly call: Call;
  /** The last position sent: nothing at or before it is sent again (undefined until the stream has joined). */
  position: Position | undefined;
  /** The frames of a page of events, shaped as this stream's GET shapes records (one call serves its whole group). */
  frames(events: StreamEvent[]): Promise<Frame[]>;
  /** Writes the frames past its position; returns how many (the last ones). */
  write(frames: Frame[]): number;
  /** `event: reset` (rows after its position were pruned), or the first `id:` of a stream that had none. */
  reset(at: Position): void;
  start(at: Position): void;
  /** Ends the stream (the client may resume from its last event id). */
  close(): void;
}

/** What the hub reports (server/http/metrics.ts). */
export interface StreamObserver {
  opened(): void;
  closed(): void;
  /** Events written to one stream: the seconds from each one's write to now. */
  sent(lags: number[]): void;
}

export interface StreamOptions {
  /** Where the log is read (the primary: a replica lags, and NOTIFY is the primary's). */
  pool: Target;
  /** The client whose dedicated connection LISTENs (postgres.js opens one for sql.listen). */
  listener: Sql;
  log: (message: string, err: unknown) => void;
  /** Milliseconds between passes besides the wake-ups: a lost notification, or a write behind a long transaction. */
  pollMs: number;
  /** Log rows one statement reads at most (a page; a group reads page after page). */
  pageRows?: number;
  observer?: StreamObserver;
}

interface Page { data: StreamEvent[]; last: string | null; read: number }

const PAGE_ROWS = 500;

export class ChangeStreams {
  readonly #live = new Set<Subscriber>();
  #joining: Subscriber[] = [];
  /** Live streams have been sent every row of the transactions before this position's. */
  #position: Position | undefined;
  #pass: Promise<void> | undefined;
  #again = false;
  #listening: Promise<{ unlisten(): Promise<void> }> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #perCaller = new Map<string, number>();

  constructor(private readonly o: StreamOptions) {}

  get open(): number { return this.#live.size + this.#joining.length; }

  /** Takes a place for one more stream of `caller`, or false past `max`. */
  admit(caller: string, max: number): boolean {
    const n = this.#perCaller.get(caller) ?? 0;
    if (n >= max) return false;
    this.#perCaller.set(caller, n + 1);
    return true;
  }

  release(caller: string): void {
    const n = (this.#perCaller.get(caller) ?? 1) - 1;
    if (n > 0) this.#perCaller.set(caller, n);
    else this.#perCaller.delete(caller);
  }

  /** A new stream: it catches up from its position (if any) on the next pass, then goes live. */
  async add(sub: Subscriber): Promise<void> {
    if (this.#closed) throw new ApiError('unavailable', 'This gateway is stopping: open the stream again (with Last-Event-ID) on another.', { headers: { 'Retry-After': '1' } });
    await this.#listen();
    this.#joining.push(sub);
    this.o.observer?.opened();
    this.wake();
  }

  remove(sub: Subscriber): void {
    const had = this.#live.delete(sub) || this.#joining.includes(sub);
    this.#joining = this.#joining.filter((s) => s !== sub);
    if (had) this.o.observer?.closed();
  }

  /** A pass now, or right after the one under way. */
  wake(): void {
    if (this.#closed) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    this.#pass = (async () => {
      do {
        this.#again = false;
        try {
          await this.#once();
        } catch (err) {
          this.o.log('change stream pass failed', err);
        }
      } while (this.#again && !this.#closed);
    })().finally(() => { this.#pass = undefined; });
  }

  /** Waits for the pass under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#pass) await this.#pass;
  }

  /** Ends every stream (their clients resume elsewhere with Last-Event-ID), stops listening and polling. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const sub of [...this.#joining, ...this.#live]) sub.close();
    await this.#pass;
    const listening = this.#listening;
    this.#listening = undefined;
    await listening?.then((l) => l.unlisten()).catch(() => {});
  }

  #listen(): Promise<unknown> {
    if (!this.#listening) {
      this.#listening = (async () => {
        const [row] = await this.o.listener`select lib.changes_channel() as channel`;
        // onlisten runs at every (re)connection too: what was written while it was down is read at once.
        return this.o.listener.listen(String(row!.channel), () => this.wake(), () => this.wake());
      })();
      this.#listening.catch(() => { this.#listening = undefined; });
      this.#timer = setInterval(() => { if (this.open) this.wake(); }, this.o.pollMs).unref();
    }
    return this.#listening;
  }

  /** One pass: the bound, the joining streams brought up to the live position, then every group's new events. */
  async #once(): Promise<void> {
    const at = this.#position;
    const [state] = await gated(this.o.pool, (sql) => sql`
      select s.bound::text as bound, s.pruned_tx::text as pruned_tx, s.pruned_id::text as pruned_id,
        ${at ? sql`lib.changes_fresh(${String(at.tx)}::xid8, ${String(at.id)}::bigint, s.bound)` : sql`false`} as fresh
      from lib.changes_state() s`);
    const bound = BigInt(state!.bound), horizon = { tx: BigInt(state!.pruned_tx), id: BigInt(state!.pruned_id) };
    const from = at ?? startOf(bound);
    this.#position = from;
    for (const sub of this.#joining.splice(0)) await this.#join(sub, from, horizon);
    if (state!.fresh && this.#live.size) {
      const groups = new Map<string, Subscriber[]>();
      for (const sub of this.#live) {
        const g = groups.get(sub.group);
        if (g) g.push(sub);
        else groups.set(sub.group, [sub]);
      }
      await Promise.all([...groups.values()].map((members) => this.#read(members, from, bound)));
    }
    this.#position = startOf(bound);
  }

  /** A stream joins the live ones: `reset` when rows after its position were pruned, else what it missed until `upto`. */
  async #join(sub: Subscriber, upto: Position, horizon: Position): Promise<void> {
    if (!sub.position) sub.start(upto);
    else if (isAfter(horizon, sub.position)) sub.reset(upto);
    else if (isAfter(upto, sub.position) && !await this.#read([sub], sub.position, upto.tx)) return;
    this.#live.add(sub);
  }

  /**
   * The group's events past `from` of transactions below `before`, page after page, written to each member. A
   * failure ends the group's streams (they resume with Last-Event-ID), so none silently misses an event.
   */
  async #read(members: Subscriber[], from: Position, before: bigint): Promise<boolean> {
    const lead = members[0]!;
    let after = from;
    try {
      for (;;) {
        const args = { ...lead.call.args, after_tx: String(after.tx), after_id: String(after.id), before: String(before), limit: this.o.pageRows ?? PAGE_ROWS };
        const page = await dispatch(this.o.pool, { ...lead.call, args }) as Page;
        if (page.data.length) {
          const frames = await lead.frames(page.data);
          const now = Date.now(), lags = page.data.map((e) => (now - Date.parse(e.at)) / 1000);
          for (const sub of members) {
            const n = sub.write(frames);
            if (n) this.o.observer?.sent(lags.slice(-n));
          }
        }
        if (page.read < (this.o.pageRows ?? PAGE_ROWS) || !page.last) return true;
        after = parsePosition(page.last, 'the log');
      }
    } catch (err) {
      this.o.log('change stream read failed; its streams are closed and will resume', err);
      for (const sub of members) sub.close();
      return false;
    }
  }
}
