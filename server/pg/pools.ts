// The gateway's connections: a pool on the primary (writes, conditional requests, files), one per replica
// of DATABASE_READ_URL (plain reads, in turn), and a one-connection probe that /health can always reach.
import postgres, { type Sql } from 'postgres';
import type { RequestLimits } from '../request/limits.ts';
import { Gate } from './gate.ts';

/** A client with its admission gate and the time limits every call on it is held to. */
export interface Pool {
  name: string;
  sql: Sql;
  gate: Gate;
  limits: Pick<RequestLimits, 'statementTimeoutMs' | 'lockTimeoutMs'>;
}

export interface Pools {
  primary: Pool;
  replicas: Pool[];
  /** The pool a plain read goes to: the next replica, or the primary when there is none. */
  read(): Pool;
  /** Its own connection, so /health and /ready answer while every pooled one waits on a lock. */
  probe: Sql;
  end(timeoutSeconds: number): Promise<void>;
}

export interface PoolOptions {
  primaryUrl: string;
  readUrls?: string[];
  limits: RequestLimits;
  /**
   * Named prepared statements (postgres.js `prepare`); off behind a transaction-mode pooler, which may
   * run the next statement on another server connection (DATABASE_PREPARED_STATEMENTS=false).
   */
  prepare?: boolean;
}

/** Where statements run: a bare client (tests, one-off tools), or a pool with its gate and time limits. */
export type Target = Sql | Pool;
export const isPool = (t: Target): t is Pool => typeof t !== 'function';

/** Runs `work` on the target's client, holding a place of the pool's gate when it is a pool (503 past POOL_TIMEOUT_MS). */
export function gated<T>(target: Target, work: (sql: Sql) => Promise<T>): Promise<T> {
  return isPool(target) ? target.gate.run(() => work(target.sql)) : work(target);
}

export function poolOver(name: string, sql: Sql, limits: RequestLimits): Pool {
  return { name, sql, gate: new Gate(limits.poolMax, limits.poolTimeoutMs), limits };
}

export function openPools(o: PoolOptions): Pools {
  const client = (url: string, max: number) => postgres(url, {
    max, prepare: o.prepare ?? true, connect_timeout: 5, onnotice: () => {}, connection: { application_name: 'modelapi' },
  });
  const primary = poolOver('primary', client(o.primaryUrl, o.limits.poolMax), o.limits);
  const replicas = (o.readUrls ?? []).map((url, i) => poolOver(`replica${i + 1}`, client(url, o.limits.poolMax), o.limits));
  const probe = client(o.primaryUrl, 1);
  let next = 0;
  return {
    primary,
    replicas,
    read: () => (replicas.length === 0 ? primary : replicas[next++ % replicas.length]!),
    probe,
    async end(timeoutSeconds) {
      await Promise.all([primary, ...replicas].map((p) => p.sql.end({ timeout: timeoutSeconds })).concat(probe.end({ timeout: timeoutSeconds })));
    },
  };
}

/** Pools over one client the caller owns (tests, and apps built without openPools): no replica, no own probe. */
export function singlePool(sql: Sql, limits: RequestLimits): Pools {
  const primary = poolOver('primary', sql, limits);
  return { primary, replicas: [], read: () => primary, probe: sql, end: async () => {} };
}
