// A batch's answers as its operations give them: each response body's JSON text is counted against
// MAX_BATCH_RESPONSE_BYTES as it comes (413 at the operation that passes it, before anything more is done with it),
// written into the batch's answer as it is, and parsed only when a later operation refers to it ($n…), once.
import { ApiError } from '../problem/types.ts';
import { JsonText, parseResult } from '../codec/json.ts';
import { LIMITS } from '../request/limits.ts';

/** One operation's response: status, its ETag / Location / Last-Modified, and its body's JSON text ('' for none: 204, 304). */
export interface OperationAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The operations' response bodies passed MAX_BATCH_RESPONSE_BYTES at operation `n`: the batch is rolled back. */
export const answerTooLarge = (max: number, n: number) => new ApiError('payloadTooLarge',
  `The response bodies of this batch's operations come to more than ${max} bytes at operation ${n} (${LIMITS.maxBatchResponseBytes.env}); the batch was rolled back.`,
  { hint: 'Split the batch into smaller ones, or ask for less in its reads (per_page, include).' });

export class Answers {
  #bytes = 0;
  /** Each operation's body text, and its member of the answer's `results`, in order. */
  readonly #texts: string[] = [];
  readonly #results: string[] = [];
  /** The bodies later operations referred to, parsed (by operation number). */
  readonly #parsed = new Map<number, unknown>();

  constructor(readonly max: number) {}

  /** Bytes of the response bodies held: at most `max`. */
  get bytes(): number { return this.#bytes; }
  /** How many bodies were parsed (those referred to). */
  get parsed(): number { return this.#parsed.size; }

  /** Operation `n`'s answer (the next one): past `max` with it, 413 naming `n`, and it is not kept. */
  add(n: number, answer: OperationAnswer): void {
    const bytes = Buffer.byteLength(answer.text);
    if (this.#bytes + bytes > this.max) throw answerTooLarge(this.max, n);
    this.#bytes += bytes;
    this.#texts.push(answer.text);
    this.#results.push(`{"status":${answer.status},"headers":${JSON.stringify(answer.headers)},"body":${answer.text || 'null'}}`);
  }

  /** Operation `n`'s response body, parsed when first asked for; undefined when it answered without one. */
  readonly body = (n: number): unknown => {
    const text = this.#texts[n - 1];
    if (!text) return undefined;
    if (!this.#parsed.has(n)) this.#parsed.set(n, parseResult(text));
    return this.#parsed.get(n);
  };

  /** The batch's 200 answer, `{"results": […]}`, each body as its operation wrote it. */
  answer(): JsonText {
    return new JsonText(`{"results":[${this.#results.join(',')}]}`);
  }
}
