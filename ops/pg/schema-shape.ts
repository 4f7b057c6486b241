// What a migrated database holds, as sorted lines of text: tables, columns, constraints, indexes,
// policies, triggers, functions, privileges and the compiler's own rows. Two databases match when their lines do.
import type { Sql } from 'postgres';

const SCHEMAS = ['app', 'api', 'auth', 'lib', 'meta'];

/** One line per object of our schemas, each with its definition. */
export async function schemaShape(sql: Sql): Promise<string[]> {
  const rows = await sql<Array<{ line: string }>>`
    with ns as (select oid, nspname from pg_namespace where nspname = any(${SCHEMAS}))
    select 'relation ' || ns.nspname || '.' || c.relname || ' ' || c.relkind::text || ' rls=' || c.relrowsecurity
         || ' acl=' || coalesce(c.relacl::text, '') || ' comment=' || coalesce(obj_description(c.oid, 'pg_class'), '') as line
      from pg_class c join ns on ns.oid = c.relnamespace where c.relkind in ('r', 'v', 'm', 'p')
    union all
    select 'column ' || ns.nspname || '.' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || ' notnull=' || a.attnotnull || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
         || ' identity=' || a.attidentity::text || ' comment=' || coalesce(col_description(c.oid, a.attnum), '')
      from pg_attribute a join pg_class c on c.oid = a.attrelid join ns on ns.oid = c.relnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
    union all
    select 'constraint ' || ns.nspname || '.' || c.relname || '.' || k.conname || ' ' || pg_get_constraintdef(k.oid)
         || ' comment=' || coalesce(obj_description(k.oid, 'pg_constraint'), '')
      from pg_constraint k join pg_class c on c.oid = k.conrelid join ns on ns.oid = c.relnamespace
    union all
    select 'index ' || ns.nspname || '.' || i.relname || ' ' || pg_get_indexdef(i.oid) || ' comment=' || coalesce(obj_description(i.oid, 'pg_class'), '')
      from pg_index x join pg_class i on i.oid = x.indexrelid join ns on ns.oid = i.relnamespace
    union all
    select 'policy ' || p.schemaname || '.' || p.tablename || '.' || p.policyname || ' ' || p.permissive || ' ' || p.roles::text || ' ' || p.cmd
         || ' using=' || coalesce(p.qual, '') || ' check=' || coalesce(p.with_check, '')
      from pg_policies p where p.schemaname = any(${SCHEMAS})
    union all
    select 'trigger ' || ns.nspname || '.' || c.relname || '.' || t.tgname || ' ' || pg_get_triggerdef(t.oid)
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join ns on ns.oid = c.relnamespace where not t.tgisinternal
    union all
    select 'function ' || ns.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') '
         || md5(pg_get_functiondef(p.oid)) || ' acl=' || coalesce(p.proacl::text, '') || ' comment=' || coalesce(obj_description(p.oid, 'pg_proc'), '')
      from pg_proc p join ns on ns.oid = p.pronamespace where p.prokind in ('f', 'p')`;
  const lines = rows.map((r) => r.line);
  // The compiler's own rows, once it has installed them (a database that holds no model has neither).
  const [own] = await sql`select to_regclass('lib.fields') is not null as fields, to_regprocedure('api.manifest()') is not null as manifest`;
  if (own?.fields) lines.push(...(await sql`select 'fields ' || f.tbl || ' ' || f.fields::text as line from lib.fields f`).map((r) => r.line as string));
  if (own?.manifest) lines.push(...(await sql`select 'manifest ' || api.manifest()::text as line`).map((r) => r.line as string));
  return lines.sort();
}

/** Lines of `a` missing from `b` ('-') and of `b` missing from `a` ('+'), at most `limit`. */
export function shapeDifference(a: string[], b: string[], limit = 20): string[] {
  const inA = new Set(a), inB = new Set(b);
  const clip = (l: string) => (l.length > 200 ? `${l.slice(0, 200)}…` : l);
  return [...a.filter((l) => !inB.has(l)).map((l) => `- ${clip(l)}`), ...b.filter((l) => !inA.has(l)).map((l) => `+ ${clip(l)}`)].slice(0, limit);
}
