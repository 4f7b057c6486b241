// The file triggers of each table with FileURL/ImageURL columns: before a write, a new block is claimed
// (lib.claim_file) and a bare {id} keeps the stored file; after it, a file no row holds goes to the outbox.
import type { TableIR } from '../ir/types.ts';
import { hasOrganization, isFile } from '../ir/columns.ts';
import { wireName } from '../model/names.ts';
import { DEFINER, ident, literal, qname } from './ident.ts';
import { fn } from './engine/refusals.ts';
import { hang, ifThen } from './layout.ts';

/** The two triggers of `t`, or their removal when the model gives it no file column (any more). */
export function fileTriggersDdl(t: TableIR): string {
  const rel = qname('app', t.name);
  const claimFn = fn(t.name, 'files');
  const discardFn = fn(t.name, 'files_gone');
  const fileColumns = t.columns.filter((c) => c.prop && isFile(c.prop));
  const files = fileColumns.map((c) => c.name);
  /** Refusals name the property as clients do (its web.name). */
  const said = new Map(fileColumns.map((c) => [c.name, literal(wireName(c.name, c.prop!))]));
  if (files.length === 0) {
    return [`DROP TRIGGER IF EXISTS files ON ${rel};`, `DROP TRIGGER IF EXISTS files_gone ON ${rel};`,
      `DROP FUNCTION IF EXISTS ${claimFn}();`, `DROP FUNCTION IF EXISTS ${discardFn}();`].join('\n');
  }
  // A sub-resource PUT is INSERT … ON CONFLICT: the insert trigger sees the proposed row, so a kept file
  // is looked up in the stored row with the same key.
  // Definer, past the policies: under the organization strategies, the row of the caller's organization (another
  // may hold the same key: its file was otherwise kept, read and then deleted by this one).
  const key = t.kind === 'subresource' ? t.relation!.ownerColumn : undefined;
  const inOrg = hasOrganization(t) ? ' AND s.organization_id = NEW.organization_id' : '';
  const claims = files.map((name) => {
    const col = ident(name);
    const stored = key
      ? `CASE WHEN TG_OP = 'UPDATE' THEN OLD.${col} ELSE (SELECT s.${col} FROM ${rel} s WHERE s.${ident(key)} = NEW.${ident(key)}${inOrg}) END`
      : `CASE WHEN TG_OP = 'UPDATE' THEN OLD.${col} END`;
    return [
      `  IF NEW.${col} IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.${col} IS DISTINCT FROM OLD.${col}) THEN`,
      `    IF jsonb_typeof(NEW.${col}) = 'object' AND NEW.${col} ? 'location' THEN`,
      `      NEW.${col} := lib.claim_file(${said.get(name)}, NEW.${col});`,
      '    ELSE  -- {id}: the file this record holds, kept as it is',
      `      kept := ${stored};`,
      hang(`      ${ifThen(`jsonb_typeof(NEW.${col}) IS DISTINCT FROM 'object' OR kept ->> 'id' IS DISTINCT FROM NEW.${col} ->> 'id'`,
        [`PERFORM lib.file_not_attachable(${said.get(name)});`])}`),
      `      NEW.${col} := kept;`,
      '    END IF;',
      '  END IF;',
    ].join('\n');
  });
  const discards = files.map((name) => {
    const col = ident(name);
    return hang(`  ${ifThen(`TG_OP = 'DELETE' OR NEW.${col} ->> 'location' IS DISTINCT FROM OLD.${col} ->> 'location'`,
      [`PERFORM lib.discard_file(OLD.${col} ->> 'location');`])}`);
  });
  const definer = `LANGUAGE plpgsql ${DEFINER}`;
  return [
    `CREATE OR REPLACE FUNCTION ${claimFn}() RETURNS trigger ${definer} AS $fn$`,
    'DECLARE kept jsonb;',
    'BEGIN',
    ...claims,
    '  RETURN NEW;',
    'END $fn$;',
    `COMMENT ON FUNCTION ${claimFn}() IS ${literal(`File properties of app.${t.name}: a new file reference is claimed by the caller, once.`)};`,
    `CREATE OR REPLACE TRIGGER files BEFORE INSERT OR UPDATE ON ${rel} FOR EACH ROW EXECUTE FUNCTION ${claimFn}();`,
    `CREATE OR REPLACE FUNCTION ${discardFn}() RETURNS trigger ${definer} AS $fn$`,
    'BEGIN',
    ...discards,
    '  RETURN NULL;',
    'END $fn$;',
    `COMMENT ON FUNCTION ${discardFn}() IS ${literal(`Files app.${t.name} no longer holds go to lib.file_outbox, deleted after commit.`)};`,
    `CREATE OR REPLACE TRIGGER files_gone AFTER UPDATE OR DELETE ON ${rel} FOR EACH ROW EXECUTE FUNCTION ${discardFn}();`,
  ].join('\n');
}
