// The identity endpoints (api.identity; design 8): POST {basePath}/auth/token, /auth/refresh and
// /auth/logout over the compiled api.auth_* functions, and GET /.well-known/jwks.json (our public key).
import { Hono, type Context } from 'hono';
import { SignJWT } from 'jose';
import { AUTH_FUNCTIONS, type Manifest } from '../../compiler/manifest/types.ts';
import type { Pool } from '../pg/pools.ts';
import { ApiError, badRequest, fromDatabase, methodNotAllowed, validationFailed, type FieldError } from '../problem/types.ts';
import { ANONYMOUS } from '../request/auth.ts';
import { readJsonObject } from '../request/body.ts';
import { refuseAnyQuery } from '../request/query.ts';
import { dispatch } from '../query/dispatch.ts';
import { jwks, type SigningKey } from './keys.ts';
import { sqlSettings, type AuthSettings } from './settings.ts';

export interface AuthContext {
  manifest: Manifest;
  /** The primary's pool: sign-in writes (attempts, refresh tokens). */
  pool: Pool;
  /** Signs access tokens; without one no /auth endpoint is served (tokens come from another provider). */
  key: SigningKey | undefined;
  settings: AuthSettings;
  /** JWT_AUDIENCE: our tokens name it, so this gateway accepts them. */
  audience?: string;
  ip(c: Context): string | null;
  fail(c: Context, err: unknown): Response;
}

const BODY_BYTES = 16 * 1024;

/** A JSON object body with exactly the string members `names` (400 for others or none, 422 for a non-string). */
async function stringsBody<K extends string>(req: Request, names: readonly K[]): Promise<Record<K, string>> {
  const body = await readJsonObject(req, BODY_BYTES);
  if (!body) throw badRequest(`This request needs a JSON object body: {${names.map((n) => `"${n}": …`).join(', ')}}.`);
  const unknown = Object.keys(body).find((k) => !(names as readonly string[]).includes(k));
  if (unknown !== undefined) throw badRequest(`Unknown property "${unknown}" in the request body.`);
  const errors: FieldError[] = names.filter((n) => typeof body[n] !== 'string' || body[n] === '')
    .map((n) => ({ property: n, rule: 'required', message: `${n} must be a non-empty string` }));
  if (errors.length) throw validationFailed(errors);
  return body as Record<K, string>;
}

/** One answer for an unknown email and a wrong password (and for any refresh token that is not live). */
const refused = (detail: string) => new ApiError('unauthenticated', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
const WRONG_CREDENTIALS = 'The email or the password is wrong.';

interface Issued { sub: string; refresh_token: string; error?: undefined; [claim: string]: unknown }
type Outcome = Issued | { error: 'invalid' | 'reused' | 'limited'; retry_after?: number };

export function authRoutes(ctx: AuthContext): Hono {
  const app = new Hono();
  app.get('/.well-known/jwks.json', (c) => c.json(jwks(ctx.key), 200, { 'Cache-Control': 'public, max-age=300' }));
  const { key, manifest } = ctx;
  if (!key || !manifest.identity) return app;
  const base = `${manifest.api.basePath}/auth`;

  const sign = async (claims: Record<string, unknown>) => {
    const { refresh_token: _r, sub, ...rest } = claims;
    const jwt = new SignJWT(rest).setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid ? { kid: key.kid } : {}) })
      .setSubject(String(sub)).setIssuedAt().setExpirationTime(`${ctx.settings.accessSeconds}s`);
    if (ctx.audience) jwt.setAudience(ctx.audience);
    return jwt.sign(key.key);
  };

  /** Runs api.auth_<fn> as an anonymous caller and answers its outcome. */
  const run = async (c: Context, fn: string, args: Record<string, unknown>): Promise<Response> => {
    let outcome: Outcome;
    try {
      outcome = await dispatch(ctx.pool, { identity: ANONYMOUS, ip: ctx.ip(c), fn, args }) as Outcome;
    } catch (err) {
      throw fromDatabase(err, true); // mapped at the boundary, as the anonymous caller it ran as
    }
    if (outcome.error === 'limited') {
      throw new ApiError('tooManyRequests', 'Too many failed sign-ins for this email or from this address; try again later.', {
        headers: { 'Retry-After': String(outcome.retry_after ?? ctx.settings.windowSeconds) },
      });
    }
    if (outcome.error === 'reused') throw refused('This refresh token was already used, so every token of its sign-in is revoked: sign in again.');
    if (outcome.error === 'invalid') throw refused(fn === AUTH_FUNCTIONS.token ? WRONG_CREDENTIALS : 'The refresh token is unknown, expired or revoked: sign in again.');
    const issued = outcome as Issued;
    return c.json({
      access_token: await sign(issued), token_type: 'Bearer', expires_in: ctx.settings.accessSeconds, refresh_token: issued.refresh_token,
    }, 200, { 'Cache-Control': 'no-store' });
  };

  const settings = sqlSettings(ctx.settings);
  const endpoints: Record<string, (c: Context) => Promise<Response>> = {
    token: async (c) => run(c, AUTH_FUNCTIONS.token, { ...await stringsBody(c.req.raw, ['email', 'password'] as const), settings }),
    refresh: async (c) => run(c, AUTH_FUNCTIONS.refresh, { ...await stringsBody(c.req.raw, ['refresh_token'] as const), settings }),
    logout: async (c) => {
      const body = await stringsBody(c.req.raw, ['refresh_token'] as const);
      await dispatch(ctx.pool, { identity: ANONYMOUS, ip: ctx.ip(c), fn: AUTH_FUNCTIONS.logout, args: body })
        .catch((err: unknown) => { throw fromDatabase(err, true); });
      return c.body(null, 204);
    },
  };
  for (const [name, handler] of Object.entries(endpoints)) {
    app.all(`${base}/${name}`, async (c) => {
      try {
        if (c.req.method !== 'POST') throw methodNotAllowed(c.req.method, ['POST']);
        refuseAnyQuery(c.req.url);
        return await handler(c);
      } catch (err) {
        return ctx.fail(c, err);
      }
    });
  }
  return app;
}
