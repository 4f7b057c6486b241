// A place in the change log (design 9): the writing transaction and the row id, `<tx>-<id>`, the `id:` of every
// stream event; Last-Event-ID and ?after= name one. Readers move forward in (tx, id) order (compiler/sql/changes.sql).
import { badRequest } from '../problem/types.ts';

export interface Position { tx: bigint; id: bigint }

const FORM = /^(\d{1,20})-(\d{1,19})$/;
const MAX_TX = (1n << 64n) - 1n, MAX_ID = (1n << 63n) - 1n;

export const positionText = (p: Position): string => `${p.tx}-${p.id}`;

/** `<tx>-<id>` as sent back by a client; 400 for anything else. */
export function parsePosition(text: string, source: string): Position {
  const m = FORM.exec(text.trim());
  const p = m ? { tx: BigInt(m[1]!), id: BigInt(m[2]!) } : undefined;
  if (!p || p.tx > MAX_TX || p.id > MAX_ID) throw badRequest(`${source} must be the id of an event of this stream ("<number>-<number>"), got "${text.slice(0, 64)}".`);
  return p;
}

/** Whether `a` comes after `b` in reading order. */
export const isAfter = (a: Position, b: Position): boolean => a.tx > b.tx || (a.tx === b.tx && a.id > b.id);

/** The position before every row of transactions from `tx` on: a reader there has read all rows of earlier ones. */
export const startOf = (tx: bigint): Position => ({ tx, id: 0n });
