// The gateway's own event-loop delay and GC pauses while a row runs, read from its /metrics (prom-client's default
// metrics): a scrape before the row resets the event-loop histogram, the one after gives its p99 and the GC added.
import type { Result } from './load.ts';

interface Scrape { loopP99: number; gcSeconds: number; gcCount: number }

/** `name`'s samples in Prometheus text, added up over their labels. */
function total(text: string, name: string): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

async function scrape(base: string): Promise<Scrape> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return {
    loopP99: total(text, 'nodejs_eventloop_lag_p99_seconds'),
    gcSeconds: total(text, 'nodejs_gc_duration_seconds_sum'),
    gcCount: total(text, 'nodejs_gc_duration_seconds_count'),
  };
}

/** `measure`'s row with the gateway's event-loop delay p99 (ms) and its GC pauses (ms in all, and how many) meanwhile. */
export async function sampled(base: string, measure: () => Promise<Result>): Promise<Result> {
  const before = await scrape(base);
  const row = await measure();
  const after = await scrape(base);
  return { ...row, loopP99: after.loopP99 * 1000, gcMs: (after.gcSeconds - before.gcSeconds) * 1000, gcCount: after.gcCount - before.gcCount };
}
