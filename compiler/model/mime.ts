// Which media types a file property accepts (web.fileTypes, else allowedMimeTypes, else images for an ImageURL)
// and how such a list admits one: exactly, or by a `type/*` wildcard. The compiler and the gateway's attach use it.
import type { Property } from './types.ts';
import { modulesOf } from '../modules/index.ts';
import type { FileOptions } from '../modules/file.ts';

/**
 * The media types a file property accepts (spec 2.3, 8): web.fileTypes, else allowedMimeTypes, else `image/*` for
 * an ImageURL (spec 2.4 names it apart from FileURL; the spec lists no default); undefined: any type.
 */
export function acceptedFileTypes(p: Property): string[] | undefined {
  const file = modulesOf(p).find(({ def }) => def.file);
  if (!file) return undefined;
  return p.web?.fileTypes ?? (file.options as FileOptions).allowedMimeTypes ?? file.def.file!.defaultTypes;
}

/** Whether `pattern` (`image/png`, or `image/*` for every image type) admits `type`, a bare lowercase media type. */
export function mimeMatches(pattern: string, type: string): boolean {
  const p = pattern.toLowerCase();
  return p.endsWith('/*') ? type.startsWith(p.slice(0, -1)) : p === type;
}

/** Whether any pattern of `list` admits `type`. */
export const mimeListAccepts = (list: readonly string[], type: string): boolean => list.some((p) => mimeMatches(p, type));
