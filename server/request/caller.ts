// The caller's IP address for matchIpAddress: the socket's peer, or, behind proxies the gateway trusts
// (TRUST_PROXY: a number of hops, or a list of proxy addresses and CIDRs), the address the last trusted
// proxy saw, by proxy-addr's rules. A client-written X-Forwarded-For entry is never taken on trust.
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import proxyaddr from 'proxy-addr';
import type { Identity } from './auth.ts';

export type Trust = (address: string, hop: number) => boolean;

/**
 * Who sent a request, for what is kept or shared per caller (Idempotency-Keys, a share of the database
 * connections): the token's `sub`, or for an anonymous caller its client address.
 */
export function callerKey(identity: Identity, ip: string | null): string {
  return identity.role === 'anon' ? `anon ${ip ?? ''}` : `sub ${String(identity.claims.sub)}`;
}

const NEVER: Trust = () => false;

/**
 * TRUST_PROXY as proxy-addr reads it: unset, `0` or `false` trusts no proxy; a whole number trusts that
 * many hops in front of the gateway; otherwise a comma list of addresses, CIDRs or proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`). `true` (any client-written hop) is refused.
 */
export function compileTrust(setting: boolean | number | string | undefined): Trust {
  if (setting === undefined || setting === false || setting === '' || /^(0|false|no)$/i.test(String(setting))) return NEVER;
  if (setting === true) return (_a, hop) => hop < 1; // one proxy in front (tests, and the old boolean)
  if (/^(true|yes)$/i.test(String(setting))) {
    throw new Error('TRUST_PROXY=true would trust any X-Forwarded-For a client writes: give the number of proxies in front of the gateway, or their addresses');
  }
  if (/^\d+$/.test(String(setting))) {
    const hops = Number(setting);
    return (_a, hop) => hop < hops;
  }
  try {
    const trust = proxyaddr.compile(String(setting).split(',').map((s) => s.trim()).filter(Boolean));
    return (address, hop) => trust(address, hop);
  } catch (err) {
    throw new Error(`TRUST_PROXY: ${(err as Error).message}`);
  }
}

const CALLER_IP = 'callerIp';

/** The caller's address; kept on the request, which the rate limit, the handler and the access log all ask for. */
export function callerIp(c: Context, trust: Trust): string | null {
  const known = c.get(CALLER_IP as never) as string | null | undefined;
  if (known !== undefined) return known;
  const ip = addressOf(c, trust);
  c.set(CALLER_IP as never, ip as never);
  return ip;
}

function addressOf(c: Context, trust: Trust): string | null {
  let socket: string | undefined;
  try {
    socket = getConnInfo(c).remote.address;
  } catch {
    socket = undefined; // no socket (in-process app.request)
  }
  if (!socket) return null;
  const forwarded = c.req.header('x-forwarded-for');
  if (trust === NEVER || !forwarded) return peerAddress(socket);
  const req = { connection: { remoteAddress: socket }, socket: { remoteAddress: socket }, headers: { 'x-forwarded-for': forwarded } };
  return normalize(proxyaddr(req as unknown as IncomingMessage, trust));
}

/** Whether a connection's peer is a proxy the gateway trusts (with a number of hops, every peer is one). */
export function trustedPeer(trust: Trust): (address: string) => boolean {
  return (address) => {
    const peer = normalize(address);
    return peer !== null && trust(peer, 0);
  };
}

/** Peers' addresses as normalize reads them, kept: a keep-alive connection sends many requests from one. */
const peers = new Map<string, string | null>();
const PEERS_KEPT = 4096;

function peerAddress(socket: string): string | null {
  let address = peers.get(socket);
  if (address === undefined) {
    if (peers.size >= PEERS_KEPT) peers.clear();
    peers.set(socket, address = normalize(socket));
  }
  return address;
}

/**
 * An address PostgreSQL's inet takes, or null: brackets and a port (`[2001:db8::1]:443`, `192.0.2.1:443`, as some
 * proxies write X-Forwarded-For) and an IPv6 zone id (`fe80::1%eth0`, which inet refuses) are dropped;
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`) reads as IPv4 so IPv4 CIDR rules match it.
 */
function normalize(address: string): string | null {
  const bare = address.trim().replace(/^\[([^\]]*:[^\]]*)\](?::\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1');
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return null;
  return bare.replace(/%.*$/, '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}
