// The identity endpoints of a model with `api.identity` (design 8): POST /auth/token (email and password),
// /auth/refresh (rotation) and /auth/logout, answered by the gateway's server/auth/routes.ts.
import type { Manifest } from '../manifest/types.ts';
import { PROBLEM_TYPE, ref, type Schema } from './common.ts';
import { operation, success } from './operations.ts';

export const AUTH_PATHS = ['/auth/token', '/auth/refresh', '/auth/logout'] as const;

const refreshToken = { type: 'string', minLength: 1, description: 'The refresh token of the last /auth/token or /auth/refresh answer.' };

export const authSchemas: Record<string, Schema> = {
  SignInRequest: {
    type: 'object', additionalProperties: false, required: ['email', 'password'],
    properties: { email: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1, writeOnly: true } },
  },
  RefreshRequest: { type: 'object', additionalProperties: false, required: ['refresh_token'], properties: { refresh_token: refreshToken } },
  TokenResponse: {
    type: 'object', required: ['access_token', 'token_type', 'expires_in', 'refresh_token'],
    properties: {
      access_token: { type: 'string', description: 'A JWT: sub (the user\'s key), email, roles (and org, org_roles where the model says).' },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds the access token is valid.' },
      refresh_token: { type: 'string', description: 'Single use: /auth/refresh answers a new one; using it twice revokes the sign-in.' },
    },
  },
};

const tooMany: Schema = {
  '429': {
    description: 'Too many failed sign-ins for this email or from this address (E_TOO_MANY_REQUESTS).',
    headers: { 'Retry-After': { description: 'Seconds until the next attempt is counted again.', schema: { type: 'integer' } } },
    content: { [PROBLEM_TYPE]: { schema: ref('Problem') } },
  },
};

/** The three paths, when the model names an identity entity. */
export function authPaths(manifest: Manifest): Record<string, Schema> {
  if (!manifest.identity) return {};
  const tokens = (what: string) => ({ '200': success(what, 'TokenResponse') });
  const open = (o: Schema) => ({ ...o, security: [] });
  return {
    '/auth/token': { post: open(operation({
      summary: 'Sign in', operationId: 'signIn', tag: 'Identity', body: { schema: 'SignInRequest' }, errors: ['415', '422'],
      description: `Checks the password of the ${manifest.identity.entity} with this email. An unknown email and a wrong password `
        + 'both answer 401. Failed attempts are limited per email and per address (429 with Retry-After).',
      success: { ...tokens('An access token and a refresh token.'), ...tooMany },
    })) },
    '/auth/refresh': { post: open(operation({
      summary: 'Refresh the access token', operationId: 'refreshToken', tag: 'Identity', body: { schema: 'RefreshRequest' }, errors: ['415', '422'],
      description: 'Rotation: answers a new pair; the refresh token given is used up. A used one presented again revokes every token of its sign-in (401).',
      success: tokens('A new access token and refresh token.'),
    })) },
    '/auth/logout': { post: open(operation({
      summary: 'Sign out', operationId: 'signOut', tag: 'Identity', body: { schema: 'RefreshRequest' }, errors: ['415', '422'],
      description: 'Revokes the refresh token and every token rotated from the same sign-in. Access tokens stay valid until they expire.',
      success: { '204': { description: 'Revoked (also when the token was unknown); no body.' } },
    })) },
  };
}
