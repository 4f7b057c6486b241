// The gateway's connections: a pool on the primary (writes, conditional requests, files), one per replica
// of DATABASE_READ_URL (plain reads, in turn), and a one-connection probe that /health can always reach.
import postgres, { type Sql } from 'postgres';
import type { RequestLimits } from '../request/limits.ts';
import { Gate, type Use } from './gate.ts';

/** A client with its admission gate and the time limits every call on it is held to. */
export interface Pool {
  name: string;
  /** A client of the pool for statements outside requests (start-up); requests go through the gate. */
  sql: Sql;
  /** Every client the pool opened (ended with it). */
  clients: Sql[];
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

/**
 * Runs `work` on the target's client, or on a connection of the pool taken for `use` through its gate (503 past
 * POOL_TIMEOUT_MS; 429 when `caller`'s share of connections held it back).
 */
export function gated<T>(target: Target, work: (sql: Sql) => Promise<T>, use: Use = 'close', caller?: string): Promise<T> {
  return isPool(target) ? target.gate.run(use, work, caller) : work(target);
}

export function openPools(o: PoolOptions): Pools {
  const client = (url: string) => postgres(url, {
    max: 1, prepare: o.prepare ?? true, connect_timeout: 5, onnotice: () => {}, connection: { application_name: 'modelapi' },
  });
  // A client per connection, so the gate chooses which one each statement is sent on.
  const pool = (name: string, url: string): Pool => {
    const clients = Array.from({ length: o.limits.poolMax }, () => client(url));
    return { name, sql: clients[0]!, clients, gate: new Gate(clients, o.limits.poolPipeline, o.limits.poolTimeoutMs, o.limits.poolCallerMax), limits: o.limits };
  };
  const primary = pool('primary', o.primaryUrl);
  const replicas = (o.readUrls ?? []).map((url, i) => pool(`replica${i + 1}`, url));
  const probe = client(o.primaryUrl);
  let next = 0;
  return {
    primary,
    replicas,
    read: () => (replicas.length === 0 ? primary : replicas[next++ % replicas.length]!),
    probe,
    async end(timeoutSeconds) {
      await Promise.all([primary, ...replicas].flatMap((p) => p.clients).concat(probe).map((c) => c.end({ timeout: timeoutSeconds })));
    },
  };
}

/** Pools over one client the caller owns (tests, and apps built without openPools): no replica, no own probe. */
export function singlePool(sql: Sql, limits: RequestLimits): Pools {
  // The client keeps its own connections: a place of the gate per connection, one statement on each.
  const primary: Pool = { name: 'primary', sql, clients: [sql], gate: new Gate(Array(limits.poolMax).fill(sql), 1, limits.poolTimeoutMs, limits.poolCallerMax), limits };
  return { primary, replicas: [], read: () => primary, probe: sql, end: async () => {} };
}
