// The schema-driven probe of one served model: from the OpenAPI document the gateway serves, valid and mutated
// requests for every operation, as several callers, with a fixed seed (test/e2e/probe*.test.ts use it).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CallOptions, Reply } from './http.ts';
import { problemIssues } from './problem.ts';
import { random, Sampler, type Json } from './sampler.ts';
import { startApi, type RunningApi } from './server.ts';
import { DocumentValidator, resolve } from '../../spec/support.ts';

const REQUESTS = Number(process.env.PROBE_REQUESTS ?? 2000);
const SEED = Number(process.env.PROBE_SEED ?? 20261122);
const CONCURRENCY = Number(process.env.PROBE_CONCURRENCY ?? 1);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const CURSOR_PARAMS = ['after', 'before'];
/** 422s about files have codes of their own (design.md 5). */
const FILE_CODES = ['E_FILE_TOO_LARGE', 'E_FILE_TYPE_NOT_ALLOWED', 'E_FILE_NOT_UPLOADED'];

// fetch resolves %2e%2e before sending, so dot segments are probed on a raw socket in limits.test.ts.
const ODD_KEYS = ['nope', 'x'.repeat(600), '0', '-1', '%C3%A9t%C3%A9', '%00', "'; select 1; --", '1e400'];

/** What a model's probe starts from: known keys by the collection a path parameter follows, and the callers. */
export interface ProbeStart {
  ids: Record<string, string[]>;
  /** Tokens to send, the first half of the time (undefined: the suite's default caller; null: none). */
  tokens: Array<string | null | undefined>;
}

export interface ProbeOptions {
  /** The served document has at least this many operations (a check that the probe sees the model). */
  minOperations: number;
  /** Part of REQUESTS this model's probe sends (default 1). */
  share?: number;
}

/** Registers the probe of `modelFile`'s API: `start` creates its first records and tokens. */
export function probe(modelFile: string, start: (api: RunningApi) => Promise<ProbeStart>, options: ProbeOptions): void {
  let api: RunningApi;
  let doc: Json;
  /** Known keys by the collection or relation a path parameter follows. */
  let ids: Record<string, string[]> = {};
  let tokens: Array<string | null | undefined> = [];
  test.before(async () => {
    api = await startApi(modelFile);
    ({ ids, tokens } = await start(api));
    doc = (await api.get('/openapi.json')).body;
  });
  test.after(async () => api?.close());

  function pathValue(s: Sampler, path: string, name: string): string {
    const segments = path.split('/');
    const collection = segments[segments.indexOf(`{${name}}`) - 1] ?? '';
    const known = ids[collection] ?? [];
    return s.chance(0.75) && known.length ? encodeURIComponent(s.pick(known)) : s.pick(ODD_KEYS);
  }

  /**
   * A query string: none; or values the parameters' schemas accept (cursors left out: only meta.next or meta.prev
   * makes one), so the request reaches the database; or anything, odd values and odd parameters included.
   */
  function queryOf(s: Sampler, params: Json[]): string {
    const mode = s.pick(['none', 'valid', 'valid', 'wild'] as const);
    if (mode === 'none') return '';
    const parts: string[] = [];
    const asked = params.filter((x) => x.in === 'query' && (mode === 'wild' || !CURSOR_PARAMS.includes(x.name)) && s.chance(0.3));
    for (const p of asked) {
      const schema = s.resolve(p.schema ?? {});
      if (p.style === 'deepObject') {
        const ops = Object.keys(schema.properties ?? {});
        if (!ops.length) continue;
        const op = s.pick(ops);
        const value = mode === 'valid' || s.chance(0.8) ? s.value(schema.properties[op]) : s.pick(['', 'x'.repeat(300), '1e400', '[', 'true']);
        parts.push(`${encodeURIComponent(p.name)}[${op}]=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`);
      } else {
        const value = mode === 'valid' || s.chance(0.8) ? s.value(schema) : s.pick(['-1', '0', '101', 'abc', '']);
        parts.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(String(value))}`);
      }
    }
    if (mode === 'wild' && s.chance(0.2)) parts.push(s.pick(['unknown=1', 'title[nope]=x', 'page=1&page=2', 'sort=-nothing', 'include=a..b']));
    return parts.length ? `?${parts.join('&')}` : '';
  }

  function bodyOf(s: Sampler, method: string, op: Json): CallOptions {
    const content = s.resolve(op.requestBody ?? {}).content ?? {};
    const schema = content['application/json']?.schema;
    if (!schema) return method !== 'GET' && s.chance(0.1) ? { raw: '{"a":1}', type: 'application/json' } : {};
    const roll = s.rnd();
    if (roll < 0.1) return { raw: s.pick(['{', '{"a":1,"a":2}', '[]', 'null', '"x"', '{"a":1e400}', 'not json']), type: s.pick(['application/json', 'text/plain']) };
    const valid = s.value(schema) as Json;
    return { body: roll < 0.55 ? valid : s.mutate(valid, schema) };
  }

  /** What is wrong with a reply (empty: nothing). */
  function issues(v: DocumentValidator, reply: Reply, method: string, path: string): string[] {
    if (reply.status >= 500) return [`HTTP ${reply.status}: ${reply.text.slice(0, 300)}`];
    if (reply.status >= 400) return problemIssues(reply, api.docsUrl, reply.status === 422 && FILE_CODES.includes(reply.body?.code) ? reply.body.code : undefined);
    if (reply.status === 304 || reply.status === 204) return reply.text === '' ? [] : [`${reply.status} with a body`];
    let declared: Json;
    try {
      declared = v.declared(path, method, reply.status);
    } catch (err) {
      return [(err as Error).message];
    }
    const media = declared.content?.[(reply.headers.get('content-type') ?? '').split(';')[0]!];
    if (!media) return declared.content ? [`undeclared content type ${reply.headers.get('content-type')}`] : [];
    const error = v.check(String(media.schema.$ref).split('/').pop()!, reply.body);
    return error ? [`body does not match ${media.schema.$ref}: ${error.slice(0, 300)}`] : [];
  }

  const requests = Math.max(1, Math.round(REQUESTS * (options.share ?? 1)));
  test(`${requests} schema-driven requests (seed ${SEED}): no 5xx, every error a problem document, every 2xx as documented`, async () => {
    const v = new DocumentValidator(doc);
    const operations = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ path, method: m.toUpperCase(), op: item[m] as Json })));
    assert.ok(operations.length >= options.minOperations, `operations: ${operations.length}`);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const worker = async (w: number, count: number) => {
     const s = new Sampler(doc, random(SEED + w));
     for (let i = 0; i < count; i++) {
      const { path, method, op } = s.pick(operations);
      const params = [...(op.parameters ?? []), ...(doc.paths[path].parameters ?? [])].map((p: Json) => resolve(doc, p));
      const concrete = path.replace(/\{([^}]+)\}/g, (_, name: string) => pathValue(s, path, name));
      const opts: CallOptions = { ...bodyOf(s, method, op), token: s.chance(0.5) ? tokens[0] : s.pick(tokens) };
      if (s.chance(0.15)) opts.headers = { [s.pick(['If-Match', 'If-None-Match', 'If-Unmodified-Since'])]: s.pick(['"1"', '*', 'W/"x"', 'garbage', 'Tue, 01 Jan 2030 00:00:00 GMT']) };
      let reply: Reply;
      try {
        reply = await api.call(method, concrete + queryOf(s, params), opts);
      } catch (err) {
        failures.push(`${method} ${concrete}: the request failed: ${(err as Error).message}`);
        continue;
      }
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      // An array sent to a collection's create is a bulk create (its description says so): answered as /bulk documents.
      const answeredAs = method === 'POST' && Array.isArray(opts.body) && doc.paths[`${path}/bulk`] ? `${path}/bulk` : path;
      for (const issue of issues(v, reply, method, answeredAs)) failures.push(`${method} ${concrete} ${JSON.stringify(opts.body ?? opts.raw ?? '').slice(0, 160)} -> ${reply.status}: ${issue}`);
     }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w, Math.ceil(requests / CONCURRENCY))));
    const summary = [...statuses].sort(([a], [b]) => a - b).map(([k, n]) => `${k}: ${n}`).join(', ');
    assert.ok([...statuses.keys()].some((k) => k < 300), `some requests succeed (${summary})`);
    assert.ok([...statuses.keys()].some((k) => k >= 400), `some requests are refused (${summary})`);
    assert.equal(failures.slice(0, 15), [], `${failures.length} of ${requests} requests broke the contract (${summary})`);
    assert.equal(api.serverErrors, []);
  });
}
