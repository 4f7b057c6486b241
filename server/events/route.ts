// A list URL asked for with Accept: text/event-stream is its change stream (design 9): checked as the list is, then
// an SSE response fed by the hub (server/events/streams.ts), with heartbeats, an end at the token's expiry and a cap.
import Negotiator from 'negotiator';
import type { Plan, Planner } from '../plan/plan.ts';
import { planRequest } from '../plan/plan.ts';
import { parseHttp, type Caller } from '../request/parse.ts';
import type { Endpoint } from '../plan/routes.ts';
import { dispatch, type Call } from '../query/dispatch.ts';
import type { Target } from '../pg/pools.ts';
import type { Identity } from '../request/auth.ts';
import { callerKey } from '../request/caller.ts';
import { ApiError, badRequest } from '../problem/types.ts';
import { projector } from '../response/project.ts';
import { exactCopy, responseText } from '../codec/json.ts';
import type { Recipient } from '../request/recipient.ts';
import type { Files } from '../files/service.ts';
import { isAfter, parsePosition, positionText, type Position } from './position.ts';
import type { ChangeStreams, Frame, StreamEvent, Subscriber } from './streams.ts';
import { changeRecordsFunction } from '../../compiler/sql/change-records.ts';

export const EVENT_STREAM = 'text/event-stream';
const OFFERED = ['application/json', EVENT_STREAM];

/** Whether the request asks for the event stream rather than JSON (Accept, weighed as RFC 9110 says). */
export function wantsEvents(accept: string | undefined): boolean {
  if (!accept?.includes(EVENT_STREAM)) return false;
  return new Negotiator({ headers: { accept } }).mediaType(OFFERED) === EVENT_STREAM;
}

/** List parameters that mean nothing to a stream (it has no pages and no order but the log's). */
const NOT_FOR_STREAMS = ['page', 'per_page', 'sort', 'count', 'before'];
/** What a stream passes on from the list's plan to api.<table>_stream. */
const STREAM_ARGS = ['filter', 'joined', 'parent', 'ancestors'];

export interface StreamDeps {
  streams: ChangeStreams;
  planner: Planner;
  /** The primary: the log is read there. */
  pool: Target;
  files?: Files;
  /** Streams per caller, unread bytes before a slow client's stream is closed. */
  maxPerCaller: number;
  bufferBytes: number;
}

export interface StreamRequest {
  req: Request;
  identity: Identity;
  ip: string | null;
  headers: Record<string, string>;
  recipient?: Recipient;
}

/** Where a stream starts (Last-Event-ID, else ?after=) and the list's plan it is checked as; 400 for what a stream cannot take. */
export async function planStream(planner: Planner, endpoint: Endpoint, req: Request, url: URL, caller: Caller): Promise<{ plan: Plan; from?: Position }> {
  const header = req.headers.get('last-event-id');
  const resume = header || url.searchParams.get('after');
  const from = resume ? parsePosition(resume, header ? 'Last-Event-ID' : '"after"') : undefined;
  const listUrl = new URL(url);
  listUrl.searchParams.delete('after');
  const unfit = NOT_FOR_STREAMS.filter((p) => listUrl.searchParams.has(p));
  if (unfit.length) throw badRequest(`A change stream takes filters, include, exclude and after; not ${unfit.map((p) => `"${p}"`).join(', ')}.`);
  const plan = planRequest(planner, endpoint, await parseHttp(endpoint.action, req, listUrl, caller, planner.limits));
  if (plan.projection.embed?.length) throw badRequest('A change stream sends records without embeds: include names properties only.');
  return { plan, ...(from ? { from } : {}) };
}

/** The change stream of a planned list: the problem a list would answer (401/403/404/400), 429 past the cap, else the stream. */
export async function openStream(d: StreamDeps, r: StreamRequest, plan: Plan, from: Position | undefined): Promise<Response> {
  const { identity } = r;
  const args = Object.fromEntries(Object.entries(plan.args).filter(([k]) => STREAM_ARGS.includes(k)));
  const call: Call = { identity, ip: r.ip, fn: plan.endpoint.resource.functions.stream, args };
  await dispatch(d.pool, call); // the list's own checks: may list, the parent is there and readable, the filters hold
  const caller = callerKey(identity, r.ip);
  if (!d.streams.admit(caller, d.maxPerCaller)) {
    throw new ApiError('tooManyRequests', `This caller has ${d.maxPerCaller} change streams open already (EVENTS_MAX_STREAMS_PER_CALLER); close one first.`,
      { headers: { 'Retry-After': '5' } });
  }
  const stream = new EventStream(d, plan, call, caller, r, from);
  try {
    await d.streams.add(stream);
  } catch (err) {
    stream.close();
    throw err;
  }
  return new Response(stream.body, {
    status: 200,
    headers: { ...r.headers, 'Content-Type': `${EVENT_STREAM}; charset=utf-8`, 'Cache-Control': 'no-cache, no-transform', Vary: 'Accept', 'X-Accel-Buffering': 'no' },
  });
}

const LINK_ACTIONS = new Set(['linked', 'unlinked']);
const HEARTBEAT = new TextEncoder().encode(': heartbeat\n\n');

/** The bytes of frames one after the other, made once for each array (every stream of a group gets the same). */
const chunks = new WeakMap<Frame[], Uint8Array>();
function joined(frames: Frame[]): Uint8Array {
  if (frames.length === 1) return frames[0]!.bytes;
  let bytes = chunks.get(frames);
  if (!bytes) chunks.set(frames, bytes = Buffer.concat(frames.map((f) => f.bytes)));
  return bytes;
}

/** setTimeout's longest delay; a later expiry is waited for in steps. */
const LONGEST_TIMER = 2 ** 31 - 1;
const encoder = new TextEncoder();

/** One open stream: its SSE body, the hub's Subscriber. */
class EventStream implements Subscriber {
  readonly group: string;
  readonly records: string;
  readonly body: ReadableStream<Uint8Array>;
  position: Position | undefined;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  readonly #url: string;
  get closed(): boolean { return this.#closed; }
  #expiry: NodeJS.Timeout | undefined;
  #forget: (() => void) | undefined;

  constructor(private readonly d: StreamDeps, private readonly plan: Plan, readonly call: Call, private readonly caller: string,
    r: StreamRequest, from: Position | undefined) {
    this.position = from;
    this.#url = r.req.url; // the request itself is not kept: an open stream holds what it needs, no more
    this.records = changeRecordsFunction(plan.endpoint.resource.table);
    const { include, exclude } = plan.projection;
    // Tokens of one caller differ in their times only: those claims decide nothing a stream reads.
    const { exp: _e, iat: _i, nbf: _n, jti: _j, ...claims } = call.identity.claims;
    this.group = d.streams.groupKey(JSON.stringify([call.fn, call.identity.role, claims, call.args, include ?? null, exclude ?? null]));
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => { this.#controller = controller; },
      cancel: () => this.close(),
    }, { highWaterMark: d.bufferBytes, size: (chunk) => chunk.byteLength });
    this.#send('retry: 3000\n\n');
    this.#expireAt(Number(call.identity.claims.exp) * 1000);
    this.#forget = r.recipient?.onGone(() => this.close());
  }

  /** `events` are the page's, shared by every group: what is shaped for this one is a copy. */
  async frames(events: StreamEvent[]): Promise<Frame[]> {
    const project = projector(this.plan.projection);
    // A link's data is {relation, target, edge}, not a record: neither projected nor holding files.
    const isRecord = (e: StreamEvent) => e.data !== null && !LINK_ACTIONS.has(e.action);
    const shaped = new Map<StreamEvent, unknown>();
    const records = events.filter(isRecord);
    if (this.d.files && records.length) {
      // Signed links are this caller's (and written into the records): a copy of them is signed.
      const page = { data: records.map((e) => exactCopy(e.data)) };
      await this.d.files.present(this.plan, page, this.#url);
      records.forEach((e, i) => shaped.set(e, page.data[i]));
    }
    const collection = this.plan.endpoint.resource.collection;
    return events.map((e) => ({
      position: parsePosition(e.id, 'the log'),
      bytes: encoder.encode(`id: ${e.id}\nevent: ${e.action}\ndata: ${responseText({
        collection, id: e.key, action: e.action, etag: e.etag === null ? null : `"${e.etag}"`, data: isRecord(e) ? project(shaped.get(e) ?? e.data) : e.data,
      }, e.data)}\n\n`),
    }));
  }

  /** The frames past its position, in one chunk: a group's streams share the bytes of a whole page. */
  write(frames: Frame[]): number {
    const at = this.position;
    const fresh = at ? frames.filter((f) => isAfter(f.position, at)) : frames;
    if (!fresh.length) return 0;
    this.position = fresh[fresh.length - 1]!.position;
    this.#enqueue(fresh.length === frames.length ? joined(frames) : joined(fresh));
    return fresh.length;
  }

  heartbeat(): void {
    this.#enqueue(HEARTBEAT);
  }

  start(at: Position): void {
    this.position = at;
    this.#send(`id: ${positionText(at)}\n\n`); // no data: sets the client's last event id, dispatches nothing
  }

  reset(at: Position): void {
    this.position = at;
    this.#send(`id: ${positionText(at)}\nevent: reset\ndata: {}\n\n`);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#expiry);
    this.#forget?.();
    this.d.streams.remove(this);
    this.d.streams.release(this.caller);
    try {
      this.#controller.close();
    } catch {
      // already cancelled by the client
    }
  }

  /** Queues text for the client; a client that leaves bufferBytes unread has its stream closed (it resumes later). */
  #send(text: string): void {
    this.#enqueue(encoder.encode(text));
  }

  #enqueue(bytes: Uint8Array): void {
    if (this.#closed) return;
    this.#controller.enqueue(bytes);
    if ((this.#controller.desiredSize ?? 0) <= 0) this.close();
  }

  /** The stream ends when the token does (a new one resumes it with Last-Event-ID). */
  #expireAt(ms: number): void {
    if (!Number.isFinite(ms)) return;
    const left = ms - Date.now();
    if (left <= 0) return void queueMicrotask(() => this.close());
    this.#expiry = setTimeout(() => this.#expireAt(ms), Math.min(left, LONGEST_TIMER)).unref();
  }
}
