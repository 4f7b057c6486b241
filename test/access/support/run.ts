// Runs one row of the access table over HTTP (a listening gateway) or straight in SQL (api.dispatch as
// the superuser, like psql), reduces the answer to an Outcome, and lists what differs from the row.
import postgres from 'postgres';
import type { Manifest } from '../../../compiler/manifest/types.ts';
import { statusFor } from '../../../server/problem/sqlstate.ts';
import type { RunningApi } from '../../e2e/support/server.ts';
import type { Case, Claims } from './cases.ts';
import { resolver, route, splitRequest } from './route.ts';

export type Resolver = ReturnType<typeof resolver>;

export interface Outcome {
  status: number;
  scenario?: string;
  ids?: string[];
  total?: number;
  detail?: string;
  /** HTTP only: the WWW-Authenticate header. */
  challenge?: string | null;
  text: string;
}

const keysOf = (rows: Array<Record<string, unknown>>, key: string) => rows.map((row) => String(row[key]));

export async function viaHttp(api: RunningApi, token: string | null, c: Case, r: Resolver): Promise<Outcome> {
  const line = r.line(c.req);
  const body = c.body && r.deep(c.body);
  const rt = route(api.manifest, line, body);
  const { method, path, query } = splitRequest(line);
  if (rt.list && method === 'GET') query.set('per_page', '100');
  const sent = rt.list && method === 'POST' ? { ...body, per_page: 100 } : body;
  const qs = query.toString();
  const reply = await api.call(method, path + (qs ? `?${qs}` : ''), {
    token, ...(sent ? { body: sent } : {}), ...(c.ip ? { headers: { 'X-Forwarded-For': c.ip } } : {}),
  });
  const out: Outcome = { status: reply.status, challenge: reply.headers.get('www-authenticate'), text: reply.text.slice(0, 500) };
  const scenario = reply.headers.get('access-scenario');
  if (scenario) out.scenario = decodeURIComponent(scenario);
  if (reply.status >= 400) out.detail = String(reply.body?.detail ?? '');
  else if (rt.list && Array.isArray(reply.body?.data)) {
    out.ids = keysOf(reply.body.data, rt.rowKey!);
    out.total = reply.body.meta?.total;
  }
  return out;
}

/** `select api.dispatch(role, claims, ip, fn, args)` with the superuser client, as psql would run it. */
export async function viaSql(sql: postgres.Sql, manifest: Manifest, claims: Claims | null, c: Case, r: Resolver): Promise<Outcome> {
  const rt = route(manifest, r.line(c.req), c.body && r.deep(c.body));
  const role = claims ? 'authenticated' : 'anon';
  try {
    const [row] = await sql`select api.dispatch(${role}, ${sql.json((claims ?? {}) as postgres.JSONValue)}, ${c.ip ?? '127.0.0.1'},
      ${rt.fn}, ${sql.json(rt.args as postgres.JSONValue)}) as r`;
    const result = row!.r as Record<string, any>;
    const out: Outcome = { status: rt.success(result), text: JSON.stringify(result).slice(0, 500) };
    if (typeof result.scenario === 'string') out.scenario = result.scenario;
    if (rt.list) {
      out.ids = keysOf(result.data, rt.rowKey!);
      out.total = result.meta?.total;
    }
    return out;
  } catch (err) {
    if (!(err instanceof postgres.PostgresError)) throw err;
    return { status: statusFor(err.code, !claims), detail: err.message, text: `${err.code} ${err.message} ${err.detail ?? ''}` };
  }
}

/** What differs between the row's expectations and the outcome (empty: the row holds). */
export function mismatches(c: Case, o: Outcome, r: Resolver): string[] {
  const out: string[] = [];
  if (o.status !== c.status) out.push(`status ${o.status}, expected ${c.status}`);
  if (c.scenario !== undefined && o.status === c.status && o.scenario !== c.scenario) out.push(`winner "${o.scenario}", expected "${c.scenario}"`);
  if (c.ids && o.status === c.status) {
    const want = r.deep(c.ids).slice().sort();
    const got = (o.ids ?? []).slice().sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`rows ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    if (o.total !== want.length) out.push(`meta.total ${o.total}, expected ${want.length}`);
  }
  for (const name of c.names ?? []) {
    if (!String(o.detail ?? '').includes(name)) out.push(`detail does not name "${name}"`);
  }
  if (o.status === 401 && o.challenge !== undefined && !/^Bearer\b/.test(o.challenge ?? '')) out.push(`401 without WWW-Authenticate: Bearer (${o.challenge})`);
  return out;
}

/** The failure message of a row: what differs, the answer, and the known defect it exposes. */
export function report(c: Case, o: Outcome, wrong: string[]): string {
  return `${c.as} ${c.req} (${c.why}): ${wrong.join('; ')}\n  answer: ${o.text}${c.bug ? `\n  known defect: ${c.bug}` : ''}`;
}
