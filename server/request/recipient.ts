// Whether the client of a request is still there to take its answer: a list or search it hung up on is
// cancelled, or never sent (server/query/dispatch.ts), so costly reads a client walks away from stop at once.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** The client a statement's answer is for: its connection. */
export interface Recipient {
  /** It closed the connection. */
  readonly gone: boolean;
  /** Runs `then` once if the client closes the connection before the returned function is called. */
  onGone(then: () => void): () => void;
}

/**
 * One per connection, kept as long as it lives: a request only adds its statement's cancel to the set, so a list
 * pays no listener of its own. A connection closes with an answer still to come only when its client hung up.
 */
class ConnectionRecipient implements Recipient {
  readonly #socket: Socket;
  readonly #waiting = new Set<() => void>();
  #watched = false;
  constructor(socket: Socket) { this.#socket = socket; }

  get gone(): boolean { return this.#socket.destroyed; }

  onGone(then: () => void): () => void {
    if (!this.#watched) {
      this.#watched = true;
      this.#socket.once('close', () => {
        for (const waiting of this.#waiting) waiting();
        this.#waiting.clear();
      });
    }
    this.#waiting.add(then);
    return () => this.#waiting.delete(then);
  }
}

const recipients = new WeakMap<Socket, Recipient>();

/**
 * The request's client, from the node adapter's `env` (its IncomingMessage); undefined for requests made in process
 * (tests calling app.request), which have no connection to lose.
 */
export function recipientOf(env: unknown): Recipient | undefined {
  const socket = (env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  if (!socket) return undefined;
  let recipient = recipients.get(socket);
  if (!recipient) recipients.set(socket, recipient = new ConnectionRecipient(socket));
  return recipient;
}
