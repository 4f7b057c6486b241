// The caller's IP address for matchIpAddress: the socket's peer, or the first X-Forwarded-For hop
// when the gateway runs behind a proxy it trusts (TRUST_PROXY). Only well-formed addresses pass.
import { isIP } from 'node:net';
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

export function callerIp(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    const first = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    const ip = first ? normalize(first) : null;
    if (ip) return ip;
  }
  try {
    const address = getConnInfo(c).remote.address;
    return address ? normalize(address) : null;
  } catch {
    return null; // no socket (in-process app.request)
  }
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) reads as IPv4 so IPv4 CIDR rules match it. */
function normalize(address: string): string | null {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return isIP(plain) ? plain : null;
}
