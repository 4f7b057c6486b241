// `npm run bench:body`: what reading a JSON request body costs the gateway's event loop, for bodies near
// MAX_BODY_BYTES shaped to be slow, as a ratio to V8's own JSON.parse of the same text measured in the same run.
import { DEFAULT_LIMITS } from '../server/request/limits.ts';
import { readJsonObjects } from '../server/request/body.ts';

const rows = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
/** Bodies under 1 MiB, each object and array within MAX_JSON_MEMBERS (so all of it is read). */
const BODIES: Record<string, string> = {
  'small numbers': JSON.stringify({ a: rows(999, () => rows(400, (i) => i % 10)) }),
  'short strings': JSON.stringify({ a: rows(999, () => rows(150, () => 'x')) }),
  'many keys': JSON.stringify(Object.fromEntries(rows(999, (i) => [`k${i}`, Object.fromEntries(rows(60, (j) => [`m${j}`, 1]))]))),
  'exact numbers': JSON.stringify({ a: rows(999, () => rows(30, () => 1.2345678901234567e-300)) }),
  'escaped text': JSON.stringify({ a: '\u0001'.repeat(170_000) }),
};

async function read(text: string): Promise<void> {
  const bytes = Buffer.byteLength(text);
  const req = new Request('http://bench/', { method: 'POST', body: text, headers: { 'content-type': 'application/json', 'content-length': String(bytes) } });
  await readJsonObjects(req, DEFAULT_LIMITS.maxBodyBytes, DEFAULT_LIMITS.maxJsonMembers);
}

/** Mean milliseconds of `work` over `n` runs, after one to warm up. */
async function timed(n: number, work: () => unknown): Promise<number> {
  await work();
  const started = performance.now();
  for (let i = 0; i < n; i++) await work();
  return (performance.now() - started) / n;
}

console.log(`${'body'.padEnd(16)} ${'KiB'.padStart(6)} ${'read ms'.padStart(9)} ${'parse ms'.padStart(9)}  ratio`);
for (const [name, text] of Object.entries(BODIES)) {
  if (Buffer.byteLength(text) > DEFAULT_LIMITS.maxBodyBytes) throw new Error(`${name}: over MAX_BODY_BYTES`);
  const ms = await timed(10, () => read(text));
  const parse = await timed(10, () => JSON.parse(text));
  console.log(`${name.padEnd(16)} ${(Buffer.byteLength(text) / 1024).toFixed(0).padStart(6)} ${ms.toFixed(1).padStart(9)} ${parse.toFixed(1).padStart(9)}  ${(ms / parse).toFixed(1)}`);
}
