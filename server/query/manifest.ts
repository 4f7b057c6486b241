// Loads the manifest the compiled database describes itself with (`select api.manifest()`); the
// gateway routes, validates and names errors from it alone, so it is read once, at startup.
import type { Sql } from 'postgres';
import type { Manifest } from '../../compiler/manifest/types.ts';

export async function loadManifest(sql: Sql): Promise<Manifest> {
  let rows;
  try {
    rows = await sql`select api.manifest() as manifest`;
  } catch (err) {
    // undefined_function, invalid_schema_name: nothing of ours is installed there.
    if (['42883', '3F000'].includes((err as { code?: string }).code ?? '')) {
      throw new Error('The database has no api.manifest(): compile the model and migrate the database first.');
    }
    throw err;
  }
  const manifest = rows[0]?.manifest as Manifest | null | undefined;
  if (!manifest || typeof manifest !== 'object' || !manifest.api || !manifest.resources) {
    throw new Error('api.manifest() returned no manifest: migrate the database to a compiled model first.');
  }
  return manifest;
}
