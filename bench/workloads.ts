// The measured workloads, each written for every path it is measured on: the gateway (HTTP), the same
// api.dispatch call made directly, the raw owner query (the floor), the statement written by hand as the
// request role (what a hand-written CRUD service would run), and for some the bare HTTP floor.
import type postgres from 'postgres';
import type { HttpWork } from './load.ts';
import { BENCH_CLAIMS, hiddenDraftIds, OWN_PROJECTS, publishedPostId } from './seed.ts';
import { roleNamesFromEnv } from '../compiler/sql/roles.ts';

export interface Workload {
  name: string;
  http: HttpWork;
  direct: (sql: postgres.Sql, worker: number, n: number) => Promise<unknown>;
  raw?: (sql: postgres.Sql, worker: number, n: number) => Promise<unknown>;
  hand?: (sql: postgres.Sql, worker: number, n: number) => Promise<unknown>;
  /** Also measured against the HTTP floor (bench/floor-server.ts), which serves its requests. */
  floor?: true;
  /** Runs once before the workload is measured. */
  setup?: (sql: postgres.Sql) => Promise<void>;
  /** Runs before each round (`--rounds`). */
  beforeRound?: (sql: postgres.Sql) => Promise<void>;
}

const API = '/api/publishing/v1';
const CLAIMS = JSON.stringify(BENCH_CLAIMS);
const pick = (n: number) => Math.floor(Math.random() * n);
/** The answers of a refused read: 404 for a record the caller may not see, 403 where one may know it exists. */
export const REFUSED = [403, 404] as const;
/** The database's name of the request role of callers with a token, as bench/install.ts compiled it. */
const CALLER_ROLE = roleNamesFromEnv(process.env).authenticated;

export async function dispatch(sql: postgres.Sql, fn: string, args: unknown): Promise<any> {
  const [row] = await sql`select api.dispatch('authenticated', ${CLAIMS}::text::jsonb, '127.0.0.1', ${fn}, ${JSON.stringify(args)}::text::jsonb)::text as r`;
  const result = JSON.parse(row!.r as string);
  // A refusal answered rather than raised (a read with answer_refusal, as the gateway sends it) fails as the raise did.
  if (result?.refused) throw result.refused;
  return result;
}

/** As the request role, by hand: role and claims for the transaction, then the statement. */
async function asCaller<T>(sql: postgres.Sql, action: string, work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`select set_config('role', ${CALLER_ROLE}, true), set_config('request.jwt.claims', ${CLAIMS}, true), set_config('request.action', ${action}, true)`;
    return work(tx);
  }) as Promise<T>;
}

/** Draft posts the bench user wrote, one per worker and path (post<4 + 2000k> is hers, in her project p5). */
const ownPost = (path: number, worker: number) => `post${4 + 2000 * (path * 10 + worker)}`;

/** Conditions every seeded post meets; a shape is a non-empty subset of them. */
const ALWAYS = [
  { field: 'title', op: 'ne', value: 'zzz' }, { field: 'body', op: 'ne', value: 'zzz' }, { field: 'status', op: 'ne', value: 'zzz' },
  { field: 'word_count', op: 'gte', value: '0' }, { field: 'word_count', op: 'lt', value: '100000' }, { field: 'author_id', op: 'ne', value: 'zzz' },
  { field: 'title', op: 'like', value: 'Title*' },
];

export function workloads(rows: number): Workload[] {
  const published = Math.floor(rows / 4);
  const projects = Math.max(OWN_PROJECTS, Math.round(rows / 100));
  const versions = new Map<string, number>();
  // Twice as many posts as connections (paths 0 and 3 of ownPost): a load generator that asks for a request
  // it then drops (wrk does so once at its start) still finds a post no other request holds.
  const free = Array.from({ length: 20 }, (_, i) => ownPost(i < 10 ? 0 : 3, i % 10));
  const versionOf = (id: string) => versions.get(id) ?? 1;
  const hidden = hiddenDraftIds(rows);
  // A deep page of everything the bench user sees, by offset and by the cursor of the page before it (count=none:
  // the same total would otherwise dominate both). 2,000 pages of 25 need 1,000,000 posts (--rows 1000000).
  const deep = Math.max(2, Math.min(2000, Math.floor(published / 25 / 2)));
  const depths = [...new Set([Math.ceil(deep / 100), Math.ceil(deep / 10), deep].map((d) => Math.max(2, d)))];
  const shaped = () => {
    const subset = 1 + pick(90); // 90 of the 127 subsets of ALWAYS
    return { project: `p${1 + pick(projects)}`, extra: ALWAYS.filter((_, i) => subset & (1 << i)) };
  };
  return [
    {
      name: 'read by id',
      floor: true,
      http: { method: 'GET', next: () => ({ path: `${API}/posts/${publishedPostId(pick(published))}` }) },
      direct: (sql) => dispatch(sql, 'posts_read', { id: publishedPostId(pick(published)), answer_refusal: true }),
      raw: (sql) => sql`select * from app.posts where id = ${publishedPostId(pick(published))}`,
    },
    // What an enumeration sends: reads of drafts the caller may not read, each answered 403 (or 404), against 'read by id'.
    ...(hidden.length ? [{
      name: 'read refused',
      http: { method: 'GET', refused: REFUSED, next: () => ({ path: `${API}/posts/${hidden[pick(hidden.length)]}` }) },
      direct: (sql) => dispatch(sql, 'posts_read', { id: hidden[pick(hidden.length)], answer_refusal: true }),
    } satisfies Workload] : []),
    {
      name: 'list indexed',
      floor: true,
      http: { method: 'GET', next: () => ({ path: `${API}/posts?project_id=p${1 + pick(projects)}&per_page=25` }) },
      direct: (sql) => dispatch(sql, 'posts_list', { filter: { field: 'project_id', op: 'eq', value: `p${1 + pick(projects)}` }, page: 1, per_page: 25, sort: [] }),
    },
    {
      // The same page with each post's project and tags embedded (compare with 'list indexed').
      name: 'list indexed, embeds',
      http: { method: 'GET', next: () => ({ path: `${API}/posts?project_id=p${1 + pick(projects)}&per_page=25&include=project,tags` }) },
      direct: (sql) => dispatch(sql, 'posts_list', {
        filter: { field: 'project_id', op: 'eq', value: `p${1 + pick(projects)}` }, page: 1, per_page: 25, sort: [], embed: { project: {}, tags: {} }, embed_limit: 100,
      }),
    },
    {
      // The indexed list under 90 filter shapes (subsets of always-true conditions): each connection holds
      // 180 prepared statements, so finding a request's shape among them is what this row measures.
      name: 'list indexed, 90 shapes',
      http: { method: 'GET', next: () => {
        const { project, extra } = shaped();
        return { path: `${API}/posts?project_id=${project}&per_page=25&${extra.map((c) => `${c.field}[${c.op}]=${encodeURIComponent(c.value)}`).join('&')}` };
      } },
      direct: (sql) => {
        const { project, extra } = shaped();
        return dispatch(sql, 'posts_list', { filter: { and: [{ field: 'project_id', op: 'eq', value: project }, ...extra] }, page: 1, per_page: 25, sort: [] });
      },
    },
    {
      name: 'list not indexed',
      http: { method: 'GET', next: () => ({ path: `${API}/posts?status=published&per_page=25` }) },
      direct: (sql) => dispatch(sql, 'posts_list', { filter: { field: 'status', op: 'eq', value: 'published' }, page: 1, per_page: 25, sort: [] }),
      // The physical floor of this row: the table owner's exact count and first page, no policies.
      raw: (sql) => Promise.all([sql`select count(*) from app.posts where status = 'published'`,
        sql`select * from app.posts where status = 'published' order by id limit 25`]),
    },
    // The same deep page by offset and by cursor, at three depths: the cursor's cost stays flat, the offset's grows.
    ...depths.flatMap((page): Workload[] => {
      let cursor = '';
      return [{
        name: `page ${page} offset`,
        http: { method: 'GET', next: () => ({ path: `${API}/posts?page=${page}&per_page=25&count=none` }) },
        direct: (sql) => dispatch(sql, 'posts_list', { page, per_page: 25, sort: [], count: 'none' }),
      }, {
        name: `page ${page} cursor`,
        setup: async (sql) => {
          cursor = (await dispatch(sql, 'posts_list', { page: page - 1, per_page: 25, sort: [], count: 'none' })).meta.next;
        },
        http: { method: 'GET', next: () => ({ path: `${API}/posts?after=${cursor}&per_page=25&count=none` }) },
        direct: (sql) => dispatch(sql, 'posts_list', { after: cursor, per_page: 25, sort: [], count: 'none' }),
      }];
    }),
    {
      name: 'create',
      http: { method: 'POST', next: () => ({ path: `${API}/posts`, body: { project_id: `p${1 + pick(OWN_PROJECTS)}`, title: 'Bench post' } }) },
      direct: (sql) => dispatch(sql, 'posts_create', { body: { project_id: `p${1 + pick(OWN_PROJECTS)}`, title: 'Bench post' } }),
      hand: (sql) => asCaller(sql, 'create', (tx) =>
        tx`insert into app.posts (project_id, title) values (${`p${1 + pick(OWN_PROJECTS)}`}, 'Bench post') returning *`),
    },
    {
      name: 'patch if-match',
      // wrk keeps the versions it saw in its own script: the next round's script starts from the database's.
      beforeRound: async (sql) => {
        for (const r of await sql<Array<{ id: string; version: number }>>`select id, version from app.posts where id in ${sql(free)}`) versions.set(r.id, Number(r.version));
      },
      http: {
        // Each in-flight request takes a post of its own from the free list and gives it back with its new version.
        method: 'PATCH',
        next: () => {
          const id = free.shift() ?? ownPost(0, 9);
          return { path: `${API}/posts/${id}`, body: { title: `t${Date.now()}` }, headers: { 'if-match': `"${versionOf(id)}"` } };
        },
        seen: (_ctx, status, _headers, body) => {
          const answer = JSON.parse(body) as { data?: { id: string; version: number }; instance?: string };
          const id = answer.data?.id ?? decodeURIComponent(answer.instance?.split('/').pop() ?? '');
          if (answer.data) versions.set(id, answer.data.version);
          if (id) free.push(id);
        },
        // The same in Lua: the post is named by the answer's id (or a problem's instance), its version by the ETag.
        get wrk() {
          return `local free, version = {}, {}
for _, id in ipairs({${free.map((id) => `"${id}"`).join(', ')}}) do table.insert(free, id) end
${free.map((id) => `version["${id}"] = ${versionOf(id)}`).join('\n')}
request = function()
  local id = table.remove(free, 1) or "${free[free.length - 1]}"
  return send("PATCH", "${API}/posts/" .. id, { ["If-Match"] = '"' .. version[id] .. '"' }, '{"title":"t' .. os.clock() .. '"}')
end
response = function(status, headers, body)
  local id = body:match('"id"%s*:%s*"([^"]+)"') or body:match('"instance"%s*:%s*"[^"]*/posts/([^"]+)"')
  if not id then return end
  local etag = headers["ETag"] or headers["etag"]
  if status == 200 and etag then version[id] = tonumber(etag:match('(%d+)')) end
  table.insert(free, id)
end
`;
        },
      },
      direct: async (sql, worker) => {
        const id = ownPost(1, worker);
        const r = await dispatch(sql, 'posts_patch', { id, body: { title: `t${Date.now()}` }, if_match: [String(versionOf(id))] });
        versions.set(id, Number(r.etag));
      },
      hand: async (sql, worker) => {
        const id = ownPost(2, worker);
        const [row] = await asCaller(sql, 'update', (tx) =>
          tx`update app.posts set title = ${`t${Date.now()}`} where id = ${id} and version = ${versionOf(id)} returning *`);
        if (!row) throw new Error(`hand-written update of ${id} matched no row`);
        versions.set(id, Number(row.version));
      },
    },
  ];
}
