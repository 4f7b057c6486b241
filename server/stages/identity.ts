// Stage identity: the caller of a request, its bearer token verified (401 for a bad one; none: anonymous),
// named on the access log and handed on in the context.
import type { Context } from 'hono';
import { setCaller } from '../http/observe.ts';
import { identify as verified, type Identity } from '../request/auth.ts';
import type { Gateway } from './context.ts';

export async function identify(g: Gateway, c: Context): Promise<Identity> {
  const identity = await verified(c.req.header('authorization'), g.verify);
  setCaller(c, identity);
  c.set('identity', identity);
  return identity;
}
