// Splits a request path below the API's base path into decoded segments: the planner matches these
// against the manifest's collections, ids and relations. Anything outside the base path is not ours.

/**
 * Whether a segment is `.` or `..`, which every URL parser resolves away (RFC 3986 5.2.4; WHATWG reads `%2E` and
 * `%2E%2E` as them too): a record keyed so could never be asked for, so no body may give a key one (server/plan/validate.ts).
 */
export const isDotSegment = (segment: string): boolean => segment === '.' || segment === '..';

/**
 * Segments of `pathname` below `basePath` (percent-decoded), or undefined when the path is not under
 * it, has an empty segment (`//`, a trailing `/`) or holds a malformed escape.
 */
export function routeSegments(pathname: string, basePath: string): string[] | undefined {
  const base = basePath.endsWith('/') ? basePath.replace(/\/+$/, '') : basePath;
  if (pathname !== base && !pathname.startsWith(base + '/')) return undefined;
  const rest = pathname.slice(base.length);
  if (rest === '' || rest === '/') return [];
  const raw = rest.slice(1).split('/');
  const segments: string[] = [];
  for (const part of raw) {
    if (part === '') return undefined;
    if (!part.includes('%')) {
      segments.push(part);
      continue;
    }
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      return undefined;
    }
  }
  return segments;
}

/**
 * The path of a request exactly as the client sent it. The URL parser resolves `..` and `%2e%2e`, so
 * `/posts/%2e%2e/tags` would become `/tags`; on a real server the request line is read instead, and its
 * segments are decoded once and never resolved. In-process requests (tests) have only the parsed URL.
 */
export function sentPath(url: URL, env: unknown): string {
  const target = (env as { incoming?: { url?: unknown } } | undefined)?.incoming?.url;
  if (typeof target !== 'string' || !target.startsWith('/')) return url.pathname;
  const end = target.indexOf('?');
  return end < 0 ? target : target.slice(0, end);
}
