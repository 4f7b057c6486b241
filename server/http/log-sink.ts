// Where the gateway's log lines go (access, error and shutdown lines): kept in memory and written to the output in
// blocks (64 KB, or what came in the last 200 ms), the rest when the process exits; lines are dropped while the output
// is not read, and once it failed (its reader went away: EPIPE), so the log never stops or fills the gateway.
import type { Writable } from 'node:stream';

export interface BlockSinkOptions {
  /** Characters gathered before a block is written at once. */
  blockChars: number;
  /** The longest a line waits in memory. */
  flushMs: number;
  /** Characters the output may hold unsent (its reader stalled) before further lines are dropped. */
  maxUnsentChars: number;
}

const DEFAULTS: BlockSinkOptions = { blockChars: 64 * 1024, flushMs: 200, maxUnsentChars: 16 * 1024 * 1024 };

/**
 * A pino destination (anything with `write(line)`). pino's own asynchronous one (sonic-boom) measures the
 * bytes of its whole pending block on every line, which cost the gateway more than writing each line
 * synchronously; this one joins its lines once per block.
 */
export class BlockSink {
  readonly #out: Writable;
  readonly #o: BlockSinkOptions;
  #lines: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;
  #dropped = 0;
  #failed = false;

  constructor(out: Writable, options: Partial<BlockSinkOptions> = {}) {
    this.#out = out;
    this.#o = { ...DEFAULTS, ...options };
    // An output that failed takes no more: without a listener its error would end the process.
    out.on('error', () => {
      this.#failed = true;
      this.#lines = [];
      this.#chars = 0;
    });
    process.once('exit', () => this.flush());
  }

  /** Lines dropped so far because the output was not read, or failed. */
  get dropped(): number { return this.#dropped; }

  write(line: string): boolean {
    if (this.#failed || this.#out.writableLength + this.#chars > this.#o.maxUnsentChars) {
      this.#dropped++;
      return false;
    }
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.#o.blockChars) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.#o.flushMs).unref();
    return true;
  }

  /** Writes what is gathered now (stdout to a pipe or a file is written synchronously, as at exit). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0 || this.#failed) return;
    const block = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    this.#out.write(block);
  }
}
