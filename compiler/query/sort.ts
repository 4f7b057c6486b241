// What a list may be sorted by, for the gateway's sort parser and the API documents' sort pattern alike:
// not a file (no value to order by), not a list property (`multiple`: a keyset cursor cannot hold one).
import type { PropertyManifest } from '../manifest/types.ts';

/** Why `name` cannot be a sort key, or undefined when it can (a JSON property, by a path inside it). */
export function sortRefusal(name: string, p: Pick<PropertyManifest, 'file' | 'multiple'>): string | undefined {
  if (p.file) return `Cannot sort by the file property "${name}".`;
  if (p.multiple) return `Cannot sort by the list property "${name}": a list has no order to page by.`;
  return undefined;
}
