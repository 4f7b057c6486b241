// The endpoint a method and path name, through the router's public functions: 404 when the path is no
// route, 405 (with Allow) when it is one but not for this method. Used by requests and batch operations.
import { methodNotAllowed, notFound } from '../problem/types.ts';
import { routeSegments } from '../request/path.ts';
import { allowed, matchRoute, type Endpoint, type Method, type RouteIndex } from './routes.ts';

export function endpointAt(routes: RouteIndex, basePath: string, path: string, method: string): Endpoint {
  const endpoints = matchRoute(routes, routeSegments(path, basePath) ?? []);
  if (endpoints.size === 0) throw notFound(`No route ${path}.`);
  const endpoint = endpoints.get(method as Method);
  if (!endpoint) throw methodNotAllowed(method, allowed(endpoints));
  return endpoint;
}
