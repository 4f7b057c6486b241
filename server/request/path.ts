// Splits a request path below the API's base path into decoded segments: the planner matches these
// against the manifest's collections, ids and relations. Anything outside the base path is not ours.

/**
 * Segments of `pathname` below `basePath` (percent-decoded), or undefined when the path is not under
 * it, has an empty segment (`//`, a trailing `/`) or holds a malformed escape.
 */
export function routeSegments(pathname: string, basePath: string): string[] | undefined {
  const base = basePath.replace(/\/+$/, '');
  if (pathname !== base && !pathname.startsWith(base + '/')) return undefined;
  const rest = pathname.slice(base.length);
  if (rest === '' || rest === '/') return [];
  const raw = rest.slice(1).split('/');
  const segments: string[] = [];
  for (const part of raw) {
    if (part === '') return undefined;
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      return undefined;
    }
  }
  return segments;
}

/** The pathname of a request URL exactly as sent (no decoding), for matching and for `instance`. */
export function requestPath(url: string): string {
  return new URL(url).pathname;
}
