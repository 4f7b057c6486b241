// Reads show a file as {id, name, mime, url} in place of its stored block, `url` a download address
// signed for 15 minutes on each read (spec 2.7, 8): single records, lists, linked records, sub-resources,
// and the records embedded in any of them (`include`).
import type { FileTree } from './limits.ts';
import type { SignOptions, Storage } from './storage.ts';

/** The lifetime of download addresses (spec 8; an upload address lasts as long as its intent: api.upload_intent). */
export const LINK_LIFETIME_MS = 15 * 60 * 1000;

interface Block { id: string; location: string; name: string; mime: string }

const isBlock = (v: unknown): v is Block => {
  const b = v as Partial<Block> | null;
  return !!b && typeof b === 'object' && typeof b.location === 'string' && typeof b.id === 'string';
};

/**
 * Replaces, in place, every stored block the tree names in the result's `data` (a row or a list of rows,
 * and the records embedded in them); `sign` is asked for the signing options only when there is a block to sign.
 */
export async function presentFiles(storage: Storage, tree: FileTree, result: unknown, sign: () => SignOptions): Promise<unknown> {
  const stored: Array<{ row: Record<string, unknown>; name: string; block: Block }> = [];
  findBlocks((result as { data?: unknown } | null)?.data, tree, stored);
  await Promise.all(stored.map(async ({ row, name, block }) => {
    const url = await storage.signGet(block.location, { name: block.name, mime: block.mime }, sign());
    row[name] = { id: block.id, name: block.name, mime: block.mime, url };
  }));
  return result;
}

/** The stored blocks of `value` (a row, a list of rows, or none) and of the records embedded in it. */
function findBlocks(value: unknown, tree: FileTree, out: Array<{ row: Record<string, unknown>; name: string; block: Block }>): void {
  if (!value || typeof value !== 'object') return;
  for (const row of (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown> | null>) {
    if (!row || typeof row !== 'object') continue;
    for (const name in tree.files) if (isBlock(row[name])) out.push({ row, name, block: row[name] as Block });
    for (const name in tree.below) findBlocks(row[name], tree.below[name]!, out);
  }
}
