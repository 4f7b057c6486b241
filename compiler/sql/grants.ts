// Privileges of the request roles on the generated tables: rebuilt on every migration so they
// follow the model. Password columns can be written but never read (spec 2.4).
import type { TableIR } from '../ir/types.ts';
import { ident, qname } from './ident.ts';
import { fill } from './layout.ts';
import { requestRoles, type RoleNames } from './roles.ts';

export function grantDdl(t: TableIR, roles: RoleNames): string {
  const grantees = requestRoles(roles);
  const rel = qname('app', t.name);
  const readable = t.columns.map((c) => c.name).filter((c) => !t.hiddenColumns.includes(c)).map(ident);
  return [
    `REVOKE ALL ON ${rel} FROM ${grantees};`,
    `GRANT SELECT ${fill('(', readable, ')')} ON ${rel} TO ${grantees};`,
    `GRANT INSERT, UPDATE, DELETE ON ${rel} TO ${grantees};`,
    // A link tells a new row from an updated one by its xmax (0 when the INSERT itself wrote it).
    ...(t.kind === 'join' ? [`GRANT SELECT (xmax) ON ${rel} TO ${grantees};`] : []),
  ].join('\n');
}
