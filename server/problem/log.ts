// Unexpected errors (the cause of a 5xx, a failed file outbox drain) as one JSON line each, through the
// gateway's pino logger at level error: code, message and where, the stack only at debug; never a multi-line dump.
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';

/** The request a failure answered, with the access line's fields: the two lines join by `request_id`. */
export interface FailedRequest { request_id: string; method: string; route: string; path: string; status: number }

/** Takes an unexpected error; `message` says what failed (`request failed`, `file outbox drain failed`). */
export type FailureLog = (message: string, err: unknown, request?: FailedRequest) => void;

/** The error as a log line holds it (`error`): never PostgreSQL's query text, parameters or internal query. */
export interface ErrorFields { type: string; code?: string; message: string; where?: string; stack?: string }

const ROOT = new URL('../../', import.meta.url);
const OURS = [ROOT.href, fileURLToPath(ROOT)];

let stderrLog: Logger | undefined;

/** Failures as lines of `logger`; without one (an app made without a logger), as pino's lines on stderr. */
export function failureLog(logger?: Logger): FailureLog {
  return (message, err, request) => {
    const to = logger ?? (stderrLog ??= pino({}, process.stderr));
    to.error({ ...request, error: errorFields(err, to.isLevelEnabled('debug')) }, message);
  };
}

/**
 * `type`, `code` (a PostgresError's SQLSTATE, a system error's `ECONNREFUSED`, an ApiError's `E_…`), `message`,
 * `where` (PostgreSQL's context of the error, else the first frame of the stack in our code), and `stack` when asked
 * (with it, the whole context: the statements it quotes too).
 */
export function errorFields(err: unknown, withStack: boolean): ErrorFields {
  const e = (err !== null && typeof err === 'object' ? err : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const stack = text(e.stack);
  const code = typeof e.code === 'string' || typeof e.code === 'number' ? String(e.code) : undefined;
  const context = text(e.where);
  const where = context ? (withStack ? context : functionFrames(context)) : ourFrame(stack);
  return {
    type: text(e.name) ?? typeof err, ...(code ? { code } : {}), message: text(e.message) ?? String(err),
    ...(where ? { where } : {}), ...(withStack && stack ? { stack } : {}),
  };
}

/**
 * The function lines of PostgreSQL's context (`PL/pgSQL function api.x(jsonb) line 9 at SQL statement`), without the
 * text of the statements it may quote (`SQL statement "…"`, many lines of a CASE); else its first line, cut short.
 */
function functionFrames(context: string): string {
  const lines = context.split('\n');
  const frames = lines.filter((l) => /^(PL\/pgSQL|SQL) function /.test(l));
  return frames.length ? frames.join('\n') : lines[0]!.slice(0, 200);
}

/** `fn (server/x.ts:12:5)`: the first frame of `stack` in the project's own files (not its dependencies). */
function ourFrame(stack: string | undefined): string | undefined {
  for (const line of stack?.split('\n') ?? []) {
    const frame = line.trim();
    if (!frame.startsWith('at ') || frame.includes('/node_modules/')) continue;
    const root = OURS.find((r) => frame.includes(r));
    if (root) return frame.slice(3).replace(root, '');
  }
  return undefined;
}
