// Graceful stop: count the requests in flight, and on SIGTERM stop accepting, close idle keep-alive
// connections, wait for those requests up to a grace period, then close whatever is left.
import type { Server } from 'node:http';

type Fetch = (req: Request, env: unknown) => Response | Promise<Response>;

export class Drain {
  #inFlight = 0;
  #idle: Array<() => void> = [];

  get inFlight(): number { return this.#inFlight; }

  /** `fetch` counting its requests. */
  wrap(fetch: Fetch): Fetch {
    return async (req, env) => {
      this.#inFlight++;
      try {
        return await fetch(req, env);
      } finally {
        if (--this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
      }
    };
  }

  /** Stops `server` accepting, waits up to `graceMs` for the requests in flight; true when they all ended. */
  async stop(server: Server, graceMs: number): Promise<boolean> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections?.();
    const timeout = (ms: number) => new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref());
    const done = this.#inFlight === 0 || await Promise.race([new Promise<true>((resolve) => this.#idle.push(() => resolve(true))), timeout(graceMs)]);
    // The last responses are written just after their handlers return: let their connections finish.
    server.closeIdleConnections?.();
    await Promise.race([closed, timeout(1000)]);
    server.closeAllConnections?.();
    return done;
  }
}
