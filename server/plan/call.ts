// The one api.* call a planned request makes (server/plan/plan.ts callOf): what dispatch runs
// (server/query/dispatch.ts), with whom it runs as.
import type { Identity } from '../request/auth.ts';
import type { Recipient } from '../request/recipient.ts';

export interface Call {
  identity: Identity;
  ip: string | null;
  fn: string;
  args: Record<string, unknown>;
  /** Bulk create: the arguments of each call, run in order by api.dispatch_each in one statement (then `args` is unused). */
  each?: Array<Record<string, unknown>>;
  /** Its `data` (a page's rows, a record read or written) stays the bytes PostgreSQL sent (DataBytes: server/query/result-data.ts). */
  dataAsSent?: boolean;
  /** A statement on one row by its key (a read, or a write of it): it may share a connection (server/pg/gate.ts). */
  shares?: 'read' | 'write';
  /** A list or search whose client may hang up: it is then cancelled, or never sent (499, only ever logged). */
  recipient?: Recipient;
}
