// The change-log trigger of each table (design 9): after every row written, lib.log_change appends it to
// lib.changes in the same transaction. A sub-resource's writes are its owner's (touch_owner updates it), so logged there.
import type { TableIR } from '../ir/types.ts';
import { literal, qname } from './ident.ts';
import { clauses } from './layout.ts';
import { versionProperty } from '../modules/version.ts';
import { primaryKeyOf } from '../model/names.ts';

/** The trigger of `t`, or its removal for a sub-resource table. */
export function changesTriggerDdl(t: TableIR): string {
  const rel = qname('app', t.name);
  if (t.kind === 'subresource') return `DROP TRIGGER IF EXISTS changes ON ${rel};  -- logged as its owner's update`;
  const key = t.kind === 'join' ? t.relation!.ownerColumn : primaryKeyOf(t.entity)[0];
  const version = t.kind === 'entity' ? versionProperty(t.entity)?.[0] : undefined;
  const args = [t.entityName, key, t.kind, version ?? '_rev', arrayText(t.hiddenColumns)].map(literal).join(', ');
  return clauses(`CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON ${rel}`, [`FOR EACH ROW EXECUTE FUNCTION lib.log_change(${args});`]);
}

/** A text[] value as trigger arguments carry it (strings only): {"a","b"}. */
const arrayText = (values: readonly string[]) => `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
