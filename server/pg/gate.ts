// Admission to one connection pool: at most `max` requests hold a connection at once, the others wait in
// line for at most `timeoutMs` and then get a 503 with Retry-After. Its counts feed the pool gauges.
import { busy } from '../problem/types.ts';

export class Gate {
  #inUse = 0;
  readonly #line: Array<() => void> = [];

  constructor(readonly max: number, private readonly timeoutMs: number) {}

  get inUse(): number { return this.#inUse; }
  get waiting(): number { return this.#line.length; }

  /** Runs `work` holding a place, after waiting for one when all are taken. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.#enter();
    try {
      return await work();
    } finally {
      this.#inUse--;
      this.#line.shift()?.();
    }
  }

  #enter(): Promise<void> {
    if (this.#inUse < this.max) {
      this.#inUse++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const admit = () => {
        clearTimeout(timer);
        this.#inUse++;
        resolve();
      };
      const timer = setTimeout(() => {
        this.#line.splice(this.#line.indexOf(admit), 1);
        reject(busy(`No database connection became free within POOL_TIMEOUT_MS (${this.timeoutMs} ms); try again.`));
      }, this.timeoutMs);
      this.#line.push(admit);
    });
  }
}
