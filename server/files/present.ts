// Reads show a file as {id, name, mime, url} in place of its stored block, `url` a download address
// signed for 15 minutes on each read (spec 2.7, 8): single records, lists, linked records, sub-resources.
import type { FileSpec } from './limits.ts';
import type { SignOptions, Storage } from './storage.ts';

/** The lifetime of upload and download addresses (spec 8). */
export const LINK_LIFETIME_MS = 15 * 60 * 1000;

interface Block { id: string; location: string; name: string; mime: string }

const isBlock = (v: unknown): v is Block => {
  const b = v as Partial<Block> | null;
  return !!b && typeof b === 'object' && typeof b.location === 'string' && typeof b.id === 'string';
};

/**
 * Replaces, in place, every stored block of `files` in the result's `data` (a row or a list of rows);
 * `sign` is asked for the signing options only when there is a block to sign.
 */
export async function presentFiles(storage: Storage, files: Record<string, FileSpec>, result: unknown, sign: () => SignOptions): Promise<unknown> {
  const names = Object.keys(files);
  const data = (result as { data?: unknown } | null)?.data;
  if (names.length === 0 || !data || typeof data !== 'object') return result;
  const rows = (Array.isArray(data) ? data : [data]) as Array<Record<string, unknown>>;
  const stored = rows.flatMap((row) => names.flatMap((name) => (isBlock(row?.[name]) ? [{ row, name, block: row[name] as Block }] : [])));
  await Promise.all(stored.map(async ({ row, name, block }) => {
    const url = await storage.signGet(block.location, { name: block.name, mime: block.mime }, sign());
    row[name] = { id: block.id, name: block.name, mime: block.mime, url };
  }));
  return result;
}
