// A change-stream client for tests: fetch with Accept: text/event-stream (as a browser's fetch would, with a token),
// parsed per the SSE rules into events and comments, awaited in the order they arrive.

export interface SseEvent { id?: string; event: string; data: any }

export class EventClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** The id of the last block with an `id:` field (what EventSource keeps as lastEventId). */
  lastId: string | undefined;
  ended = false;
  #waiters: Array<() => void> = [];
  #abort = new AbortController();

  private constructor(readonly status: number, readonly headers: Headers, readonly text?: string) {}

  /** Opens the stream at `url`; a refusal comes back with its status and problem text, and no events. */
  static async open(url: string, token: string | null, headers: Record<string, string> = {}): Promise<EventClient> {
    const abort = new AbortController();
    const res = await fetch(url, {
      headers: { Accept: 'text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers }, signal: abort.signal,
    });
    if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      return new EventClient(res.status, res.headers, await res.text());
    }
    const client = new EventClient(res.status, res.headers);
    client.#abort = abort;
    void client.#read(res.body!);
    return client;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let block: { id?: string; event?: string; data: string[] } = { data: [] };
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (block.id !== undefined) this.lastId = block.id;
            if (block.data.length) {
              this.events.push({ ...(block.id !== undefined ? { id: block.id } : {}), event: block.event ?? 'message', data: JSON.parse(block.data.join('\n')) });
            }
            block = { data: [] };
            this.#notify();
          } else if (line.startsWith(':')) {
            this.comments.push(line.slice(1).trim());
            this.#notify();
          } else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') block.id = value;
            else if (field === 'event') block.event = value;
            else if (field === 'data') block.data.push(value);
          }
        }
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.#notify();
  }

  #notify(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Waits until `ready` holds (checked at every event, comment and the end); fails if the stream ends first. */
  async until(ready: () => boolean, what: string): Promise<void> {
    while (!ready()) {
      if (this.ended) throw new Error(`the stream ended before ${what}; events: ${JSON.stringify(this.events.map((e) => `${e.event} ${e.data?.id ?? ''}`))}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Waits for `n` events in all. */
  count(n: number): Promise<void> {
    return this.until(() => this.events.length >= n, `${n} events`);
  }

  /** Waits for the server to end the stream. */
  async end(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.#abort.abort();
  }
}
