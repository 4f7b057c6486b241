// Whether the client of a request is still there to take its answer: a list or search it hung up on is
// cancelled, or never sent (server/query/dispatch.ts), so costly reads a client walks away from stop at once.
import type { ServerResponse } from 'node:http';

/** The client a statement's answer is for. */
export interface Recipient {
  /** It closed the connection before its answer was written. */
  readonly gone: boolean;
  /** Runs `then` once, when the client closes the connection before its answer was written. */
  onGone(then: () => void): void;
}

/**
 * The request's client, from the node adapter's `env` (its ServerResponse); undefined for requests made in process
 * (tests calling app.request), which have no connection to lose.
 */
export function recipientOf(env: unknown): Recipient | undefined {
  const res = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!res || typeof res.once !== 'function') return undefined;
  // 'close' also follows an answer written whole: only one not finished means the client went away.
  return {
    get gone() { return res.closed && !res.writableFinished; },
    onGone(then) { res.once('close', () => { if (!res.writableFinished) then(); }); },
  };
}
