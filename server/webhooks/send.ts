// One webhook POST, signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature over
// `id.timestamp.body`, HMAC-SHA256 with the webhook's secret), within a time limit: its HTTP status, or why none came.
import { Webhook } from 'standardwebhooks';
import type { WebhookTarget } from './settings.ts';

export type Attempt = { status: number } | { error: string };

/** Bytes of a receiver's answer read at most (it is not kept: reading it lets the connection be reused). */
const MAX_ANSWER_BYTES = 64 * 1024;

export class Sender {
  readonly #signers = new Map<string, Webhook>();

  constructor(private readonly timeoutMs: number, private readonly clock: () => number) {}

  /** POSTs `body` to the target; `stop` aborts it (the gateway is stopping). Never throws. */
  async post(target: WebhookTarget, messageId: string, body: string, stop: AbortSignal): Promise<Attempt> {
    let signer = this.#signers.get(target.name);
    if (!signer) this.#signers.set(target.name, signer = new Webhook(target.secret));
    const sentAt = new Date(this.clock());
    const signal = AbortSignal.any([stop, AbortSignal.timeout(this.timeoutMs)]);
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        redirect: 'manual',
        signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'modelapi-webhooks',
          'webhook-id': messageId,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signer.sign(messageId, sentAt, body),
        },
        body,
      });
      await drainAnswer(res);
      return { status: res.status };
    } catch (err) {
      if (stop.aborted) return { error: 'the gateway stopped before the receiver answered' };
      if (signal.aborted) return { error: `no answer within ${this.timeoutMs} ms (WEBHOOK_TIMEOUT_MS)` };
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return { error: cause?.code ? `${cause.code}: ${cause.message ?? ''}`.trim() : String((err as Error)?.message ?? err) };
    }
  }
}

/** Reads and drops the answer's body, MAX_ANSWER_BYTES at most (then the connection is given up). */
async function drainAnswer(res: Response): Promise<void> {
  if (!res.body) return;
  let read = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
    if (read > MAX_ANSWER_BYTES) { await reader.cancel(); return; }
  }
}
