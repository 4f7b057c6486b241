// How a file property's list of MIME types (allowedMimeTypes, web.fileTypes) admits a media type: exactly, or
// by the `type/*` wildcard the model schema allows. The model's checks and the gateway's attach both use it.

/** Whether `pattern` (`image/png`, or `image/*` for every image type) admits `type`, a bare lowercase media type. */
export function mimeMatches(pattern: string, type: string): boolean {
  const p = pattern.toLowerCase();
  return p.endsWith('/*') ? type.startsWith(p.slice(0, -1)) : p === type;
}

/** Whether any pattern of `list` admits `type`. */
export const mimeListAccepts = (list: readonly string[], type: string): boolean => list.some((p) => mimeMatches(p, type));
