// The HTTP gateway, built from the manifest alone: middleware, the routes of their own (documents, uploads, batch,
// /auth), then every API request through the named stages (server/stages/): route → identity → parse → plan →
// dispatch → respond. Whatever fails on the way becomes a problem document at one boundary (stages/boundary.ts).
import { Hono, type Context } from 'hono';
import { authRoutes } from './auth/routes.ts';
import { DEFAULT_AUTH_SETTINGS } from './auth/settings.ts';
import { batchRoute } from './batch/route.ts';
import { docsRoutes } from './docs.ts';
import { fileRoutes } from './files/routes.ts';
import { compression } from './http/compression.ts';
import { corsFor } from './http/cors.ts';
import { observe } from './http/observe.ts';
import { rateLimit } from './http/rate-limit.ts';
import { notFound } from './problem/types.ts';
import { ANONYMOUS } from './request/auth.ts';
import { callerIp, callerKey } from './request/caller.ts';
import { answerProblem } from './stages/boundary.ts';
import { gatewayOf, type AppOptions } from './stages/context.ts';
import { dispatch } from './stages/dispatch.ts';
import { identify } from './stages/identity.ts';
import { parse } from './stages/parse.ts';
import { plan, stream, wantsStream } from './stages/plan.ts';
import { respond } from './stages/respond.ts';
import { otherMethods, route } from './stages/route.ts';

export type { AppOptions };

export function createApp(opts: AppOptions): Hono {
  const g = gatewayOf(opts);
  const { basePath, manifest, limits, trust } = g;
  const app = new Hono();
  const others = otherMethods(app);
  const fail = (c: Context, err: unknown) => answerProblem(g, c, err);
  const ip = (c: Context) => callerIp(c, trust);

  /** One API request, stage by stage. */
  const handle = async (c: Context) => {
    try {
      const endpoint = route(g, c, others);
      const identity = await identify(g, c);
      if (wantsStream(c, endpoint)) return await stream(g, c, endpoint, identity);
      const request = await parse(g, c, endpoint, identity);
      const planned = plan(g, c, endpoint, request);
      const result = await dispatch(g, c, planned, request);
      return respond(g, c, planned, request, result);
    } catch (err) {
      return fail(c, err);
    }
  };

  app.use('*', observe(opts.logger, opts.metrics, opts.logCaller === false ? undefined : ip));
  if (opts.corsOrigins?.length) app.use('*', corsFor(opts.corsOrigins));
  app.use('*', compression());
  if (limits.rateLimitRequests > 0) {
    app.use(`${basePath}/*`, rateLimit({
      requests: limits.rateLimitRequests, windowSeconds: limits.rateLimitWindowSeconds,
      caller: async (c) => callerKey(await identify(g, c).catch(() => ANONYMOUS), ip(c)), fail,
    }));
  }
  app.route('/', docsRoutes(manifest)); // GET openapi.json, api.raml, docs: before the API's catch-all
  // POST .well-known/upload; the local driver's signed addresses
  if (opts.files) app.route('/', fileRoutes(opts.files, { identify: (c) => identify(g, c), ip, fail }));
  // A collection named "batch" keeps its route, as with the documents.
  if (!Object.values(manifest.resources).some((r) => r.collection === 'batch')) app.all(`${basePath}/batch`, batchRoute(g));
  app.route('/', authRoutes({ // POST auth/token, auth/refresh, auth/logout; GET /.well-known/jwks.json
    manifest, pool: g.pools.primary, key: g.signingKey, settings: { ...DEFAULT_AUTH_SETTINGS, ...opts.auth },
    ...(opts.jwtAudience ? { audience: opts.jwtAudience } : {}), ip, fail,
  }));
  app.all(basePath, handle);
  app.all(`${basePath}/*`, handle);
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    return fail(c, others(c.req.method, path) ?? notFound(`No route ${path}.`));
  });
  app.onError((err, c) => fail(c, err));
  return app;
}
