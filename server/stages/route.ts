// Stage route: the API endpoint a request's method and path name (HEAD as GET), with its template on the access
// log; a path that other routes serve with other methods answers 405 with Allow, any other path 404.
import type { Context, Hono } from 'hono';
import { setRoute } from '../http/observe.ts';
import { endpointAt } from '../plan/endpoint.ts';
import { routeTemplate, type Endpoint } from '../plan/routes.ts';
import { ApiError, methodNotAllowed } from '../problem/types.ts';
import { sentPath } from '../request/path.ts';
import type { Gateway } from './context.ts';

/** The 405 for a path another route of the app serves with other methods, or undefined. */
export type OtherMethods = (method: string, path: string) => ApiError | undefined;

export function route(g: Gateway, c: Context, others: OtherMethods): Endpoint {
  const url = new URL(c.req.url);
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method; // Hono answers HEAD with GET's response, bodiless
  let endpoint: Endpoint;
  try {
    endpoint = endpointAt(g.routes, g.basePath, sentPath(url, c.env), method);
  } catch (err) {
    throw (err instanceof ApiError && err.status === 404 ? others(c.req.method, url.pathname) : undefined) ?? err;
  }
  setRoute(c, g.basePath + routeTemplate(endpoint));
  c.set('endpoint', endpoint);
  return endpoint;
}

/**
 * 405 with Allow for a path that routes of their own serve with other methods (the documents under the base
 * path, jwks.json, /health, /metrics: routes added after this app is made count too); undefined otherwise.
 */
export const otherMethods = (app: Hono): OtherMethods => (method, path) => {
  const methods = [...new Set(app.routes.filter((r) => r.path === path && r.method !== 'ALL').map((r) => r.method))];
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods.length ? methodNotAllowed(method, methods) : undefined;
};
