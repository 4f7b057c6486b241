// The gateway's change-stream hub (design 9): one LISTEN connection wakes it; each pass reads a page of a table's changes
// once, shaped, beside one statement for what each group of streams may see of it, then writes each group's events.
import type { Sql } from 'postgres';
import { dispatch, type Call } from '../query/dispatch.ts';
import { argsText, parseResult } from '../codec/json.ts';
import { gated, type Target } from '../pg/pools.ts';
import { isAfter, parsePosition, startOf, type Position } from './position.ts';
import { ApiError } from '../problem/types.ts';
import type { RequestLimits } from '../request/limits.ts';

/** One change of a page (lib.<table>_change_records): its position, action, record key, ETag, time and record shaped. */
export interface StreamEvent { id: string; action: string; key: string; etag: string | null; at: string; data: unknown }

/** An event as written to a stream: its position, and its bytes (`id:`, `event:`, `data:`), encoded once for its group. */
export interface Frame { position: Position; bytes: Uint8Array }

/** One open stream, as the hub sees it (server/events/route.ts makes them). */
export interface Subscriber {
  /** Streams with the same key are asked about once per page: same function, claims, filters, parent and projection. */
  readonly group: string;
  /** api.<table>_stream as this stream's caller; each pass adds the page's bounds to its arguments. */
  readonly call: Call;
  /** lib.<table>_change_records, quoted: the pages of the table's changes, shaped once for all its streams. */
  readonly records: string;
  /** The last position sent: nothing at or before it is sent again (undefined until the stream has joined). */
  position: Position | undefined;
  /** The frames of a page of events, shaped as this stream's GET shapes records (one call serves its whole group). */
  frames(events: StreamEvent[]): Promise<Frame[]>;
  /** A heartbeat comment (every heartbeatMs, from the hub's one timer). */
  heartbeat(): void;
  /** Writes the frames past its position; returns how many (the last ones). */
  write(frames: Frame[]): number;
  /** `event: reset` (rows after its position were pruned), or the first `id:` of a stream that had none. */
  reset(at: Position): void;
  start(at: Position): void;
  /** Ends the stream (the client may resume from its last event id). */
  close(): void;
  readonly closed: boolean;
}

/** What the hub reports (server/http/metrics.ts). */
export interface StreamObserver {
  opened(): void;
  closed(): void;
  /** Events written to one stream: the seconds from each one's write to now. */
  sent(lags: number[]): void;
  /** A pass over the log ended, after this many seconds. */
  passed(seconds: number): void;
}

export interface StreamOptions {
  /** Where the log is read (the primary: a replica lags, and NOTIFY is the primary's). */
  pool: Target;
  /** The client whose dedicated connection LISTENs (postgres.js opens one for sql.listen). */
  listener: Sql;
  log: (message: string, err: unknown) => void;
  /** Milliseconds between passes besides the wake-ups: a lost notification, or a write behind a long transaction. */
  pollMs: number;
  /** Milliseconds between heartbeat comments on every stream. */
  heartbeatMs: number;
  observer?: StreamObserver;
}

interface Page { data: StreamEvent[]; last: string | null; read: number }

/** Log rows one page holds at most (a long catch-up reads page after page). */
const PAGE_ROWS = 500;

/** The hub's timings from the limits (EVENTS_POLL_MS, EVENTS_HEARTBEAT_MS). */
export const streamTimings = (limits: Pick<RequestLimits, 'eventsPollMs' | 'eventsHeartbeatMs'>) =>
  ({ pollMs: limits.eventsPollMs, heartbeatMs: limits.eventsHeartbeatMs });

export class ChangeStreams {
  readonly #live = new Set<Subscriber>();
  #joining: Subscriber[] = [];
  /** Streams reading what they missed, beside the passes (a long resume never holds the others back). */
  readonly #catching = new Set<Subscriber>();
  /** Where a stream that caught up has read to (all rows of transactions before it), until it goes live. */
  readonly #cursors = new Map<Subscriber, Position>();
  /** Live streams have been sent every row of the transactions before this position's. */
  #position: Position | undefined;
  #pass: Promise<void> | undefined;
  #again = false;
  #listening: Promise<{ unlisten(): Promise<void> }> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #beat: NodeJS.Timeout | undefined;
  /** One string for each group key: the streams of a group share it. */
  readonly #keys = new Map<string, { key: string; streams: number }>();
  #closed = false;
  readonly #perCaller = new Map<string, number>();

  constructor(private readonly o: StreamOptions) {}

  get open(): number { return this.#live.size + this.#joining.length + this.#catching.size; }

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

  /** The key a stream's group is known by, the same string for all of them (released when the stream is removed). */
  groupKey(key: string): string {
    const known = this.#keys.get(key);
    if (known) {
      known.streams++;
      return known.key;
    }
    this.#keys.set(key, { key, streams: 1 });
    return key;
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
    const known = this.#keys.get(sub.group);
    if (known && --known.streams === 0) this.#keys.delete(sub.group);
    const had = this.#live.delete(sub) || this.#catching.delete(sub) || this.#joining.includes(sub);
    this.#joining = this.#joining.filter((s) => s !== sub);
    this.#cursors.delete(sub);
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
        const started = performance.now();
        try {
          await this.#once();
          this.o.observer?.passed((performance.now() - started) / 1000);
        } catch (err) {
          this.o.log('change stream pass failed', err);
        }
      } while (this.#again && !this.#closed);
    })().finally(() => {
      this.#pass = undefined;
      if (this.#again) this.wake(); // asked for after the loop's last look, before this: not lost
    });
  }

  /** Ends every stream (their clients resume elsewhere with Last-Event-ID), stops listening and polling. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearInterval(this.#beat);
    for (const sub of this.#all()) sub.close();
    await this.#pass;
    const listening = this.#listening;
    this.#listening = undefined;
    await listening?.then((l) => l.unlisten()).catch(() => {});
  }

  #all(): Subscriber[] {
    return [...this.#joining, ...this.#catching, ...this.#live];
  }

  #listen(): Promise<unknown> {
    if (!this.#listening) {
      this.#listening = (async () => {
        const [row] = await this.o.listener`select lib.changes_channel() as channel`;
        // onlisten runs at every (re)connection too: what was written while it was down is read at once.
        return this.o.listener.listen(String(row!.channel), () => this.wake(), () => this.wake());
      })();
      this.#listening.catch(() => { this.#listening = undefined; }); // the next stream tries again; the poll goes on
      this.#timer ??= setInterval(() => { if (this.open) this.wake(); }, this.o.pollMs).unref();
      this.#beat ??= setInterval(() => { for (const sub of this.#all()) sub.heartbeat(); }, this.o.heartbeatMs).unref();
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
    for (const sub of this.#joining.splice(0)) this.#join(sub, from, horizon);
    if (state!.fresh && this.#live.size) {
      // Per table, its groups: a page of the table's changes is read once, then each group's positions in it.
      const tables = new Map<string, Map<string, Subscriber[]>>();
      for (const sub of this.#live) {
        const groups = tables.get(sub.records) ?? new Map<string, Subscriber[]>();
        tables.set(sub.records, groups);
        const g = groups.get(sub.group);
        if (g) g.push(sub);
        else groups.set(sub.group, [sub]);
      }
      await Promise.all([...tables.values()].map((groups) => this.#read([...groups.values()], from, bound)));
    }
    this.#position = startOf(bound);
  }

  /**
   * A stream goes live at `from` (the position the pass reads from): at once when it has no position (it starts
   * there) or one pruned away (`reset`), or once it has read what it missed up to `from`. That reading runs beside
   * the passes, up to where the hub stands, and the stream comes back to join; a pass never waits for it.
   */
  #join(sub: Subscriber, from: Position, horizon: Position): void {
    const cursor = this.#cursors.get(sub);
    if (!sub.position) sub.start(from);
    else if (!cursor && isAfter(horizon, sub.position)) sub.reset(from);
    else if (isAfter(from, cursor ?? sub.position)) return void this.#catchUp(sub, cursor ?? sub.position, from);
    this.#cursors.delete(sub);
    this.#live.add(sub);
  }

  async #catchUp(sub: Subscriber, cursor: Position, upto: Position): Promise<void> {
    this.#catching.add(sub);
    await this.#read([[sub]], cursor, upto.tx);
    if (!this.#catching.delete(sub) || sub.closed) return;
    this.#cursors.set(sub, upto); // every row of the transactions before `upto` read
    this.#joining.push(sub);
    this.wake();
  }

  /**
   * The events of one table past `from`, of transactions below `before`, page after page: each page shaped once
   * (lib.<table>_change_records, as the gateway), then each group's caller asked which of it it may see (one statement
   * a group), and those written to the group's streams. A group whose statement fails has its streams ended (they
   * resume with Last-Event-ID), so none silently misses an event.
   */
  async #read(groups: Subscriber[][], from: Position, before: bigint): Promise<void> {
    const lim = PAGE_ROWS;
    const fn = groups[0]![0]!.records;
    let after = from, live = groups;
    try {
      while (live.length) {
        // The page shaped once, and what each group may see of it, side by side: both read the same first `lim` rows.
        const [[row], seen] = await Promise.all([
          gated(this.o.pool, (sql) => sql`
            select ${sql.unsafe(fn)}(${String(after.tx)}::xid8, ${String(after.id)}::bigint, ${String(before)}::xid8, ${lim})::text as page`),
          this.#visibleToAll(live, this.#pageArgs(after, before, lim)),
        ]);
        const page = parseResult(String(row!.page)) as Page; // numbers a double cannot hold stay exact
        live = seen.filter((g) => g.visible).map((g) => g.members);
        const now = Date.now();
        await Promise.all(seen.map(async ({ members, visible }) => {
          if (!visible) return;
          const events = page.data.filter((e) => visible.has(e.id));
          if (!events.length) return;
          const frames = await members[0]!.frames(events);
          const lags = events.map((e) => (now - Date.parse(e.at)) / 1000);
          for (const sub of members) {
            const n = sub.write(frames);
            if (n) this.o.observer?.sent(lags.slice(-n));
          }
        }));
        if (page.read < lim || !page.last) return;
        after = parsePosition(page.last, 'the log');
      }
    } catch (err) {
      this.o.log('change stream read failed; its streams are closed and will resume', err);
      for (const members of live) for (const sub of members) sub.close();
    }
  }

  /**
   * What each group's caller may see of a page, in one statement for all the groups (api.dispatch as each of
   * them in turn, as a batch runs its operations); when it fails, group by group, so one group's failure ends only
   * its own streams.
   */
  async #visibleToAll(groups: Subscriber[][], page: Record<string, unknown>): Promise<Array<{ members: Subscriber[]; visible?: Set<string> }>> {
    if (groups.length > 1) {
      const calls = groups.map((members, i) => {
        const { identity, ip, fn, args } = members[0]!.call;
        return { i, role: identity.role, claims: identity.claims, ip, fn, args: { ...args, ...page } };
      });
      try {
        const rows = await gated(this.o.pool, (sql) => sql.unsafe(`select x.i, api.dispatch(x.role, x.claims, x.ip, x.fn, x.args)::text as r
          from jsonb_to_recordset($1::text::jsonb) as x(i integer, role text, claims jsonb, ip text, fn text, args jsonb) order by x.i`, [argsText(calls)]));
        return groups.map((members, i) => ({ members, visible: new Set((JSON.parse(String(rows[i]!.r)) as { data: string[] }).data) }));
      } catch {
        // one group's statement failed them all: ask each alone
      }
    }
    return Promise.all(groups.map(async (members) => {
      const visible = await this.#visible(members, page);
      return visible ? { members, visible } : { members };
    }));
  }

  /** What a page is, as api.<table>_stream takes it: the rows past `after`, of transactions below `before`, `lim` at most. */
  #pageArgs(after: Position, before: bigint, lim: number): Record<string, unknown> {
    return { after_tx: String(after.tx), after_id: String(after.id), before: String(before), limit: lim };
  }

  /** The positions of the page the group's caller may see, or undefined when asking failed (its streams are ended). */
  async #visible(members: Subscriber[], page: Record<string, unknown>): Promise<Set<string> | undefined> {
    const lead = members[0]!;
    try {
      const result = await dispatch(this.o.pool, { ...lead.call, args: { ...lead.call.args, ...page } }) as { data: string[] };
      return new Set(result.data);
    } catch (err) {
      this.o.log('change stream visibility failed; its streams are closed and will resume', err);
      for (const sub of members) sub.close();
      return undefined;
    }
  }
}
