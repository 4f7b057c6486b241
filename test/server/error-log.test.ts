// Unexpected errors in the log: a 500 (here a column the API's functions need, renamed under them) is one JSON
// error line with its request's id, SQLSTATE, message and where, joinable with its access line; never a dump.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import postgres from 'postgres';
import { pino } from 'pino';
import { createApp } from '../../server/app.ts';
import { Files } from '../../server/files/service.ts';
import { storageFromEnv } from '../../server/files/drivers.ts';
import { observedTime } from '../../server/http/observe.ts';
import { errorFields, failureLog } from '../../server/problem/log.ts';
import { BASE, SECRET, call, startApi, token, type Api } from './setup.ts';

let api: Api;
let editor: string;
/** A log as the gateway's (pino) whose lines land in `lines`; `level` as LOG_LEVEL. */
function logger(level = 'info') {
  const lines: any[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { logger: pino({ level, timestamp: observedTime }, sink), lines };
}
/** An app with such a log. */
function logged(level = 'info') {
  const { logger: log, lines } = logger(level);
  return { app: createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, logger: log }), lines };
}

test.before(async () => {
  api = await startApi();
  editor = await token({ sub: 'u2', roles: ['editor'] });
  // Reading or creating a tag now fails in SQL with 42703 (undefined_column): a 500, as a bug would be.
  await api.db.sql`alter table app.tags rename column label to label_gone`;
});
test.after(async () => api?.close());

/** The lines of `id` once its access line is written (its batch is due OBSERVED_MS after the request). */
async function linesOf(lines: any[], id: string): Promise<any[]> {
  for (let i = 0; i < 200 && !lines.some((l) => l.request_id === id && l.msg === 'request'); i++) await new Promise((r) => setTimeout(r, 10));
  return lines.filter((l) => l.request_id === id);
}

test('a 500 is one error line with the request id of its access line, the SQLSTATE, message and where; no stack at info', async () => {
  const { app, lines } = logged();
  const res = await app.request(`${BASE}/tags/t1`, { headers: { authorization: `Bearer ${editor}`, 'x-request-id': 'boom-1' } });
  assert.is(res.status, 500);
  const body = await res.text();
  assert.not.match(body, /label|42703|tags_read/, 'the client sees no internals');
  const mine = await linesOf(lines, 'boom-1');
  assert.equal(mine.map((l) => [l.level, l.msg]), [[50, 'request failed'], [30, 'request']], JSON.stringify(lines));
  const [error, access] = mine;
  assert.equal([error.method, error.route, error.path, error.status], ['GET', `${BASE}/tags/{id}`, `${BASE}/tags/t1`, 500]);
  assert.equal([access.method, access.route, access.path, access.status], [error.method, error.route, error.path, error.status]);
  assert.is(error.error.type, 'PostgresError');
  assert.is(error.error.code, '42703');
  assert.match(error.error.message, 'label');
  assert.match(error.error.where, /^PL\/pgSQL function api\.tags_read/);
  assert.is(error.error.stack, undefined, 'the stack only at debug');
  assert.equal(Object.keys(error.error).sort(), ['code', 'message', 'type', 'where'], 'never the query, its parameters or internal_query');
});

test('at LOG_LEVEL debug the error line carries the stack too', async () => {
  const { app, lines } = logged('debug');
  const res = await app.request(`${BASE}/tags`, { method: 'POST', headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json', 'x-request-id': 'boom-2' }, body: '{"slug":"t2","label":"x"}' });
  assert.is(res.status, 500);
  const [error] = await linesOf(lines, 'boom-2');
  assert.is(error?.error.code, '42703');
  assert.match(error?.error.stack ?? '', /^PostgresError: /);
});

test('a batch answering 500: one error line with the batch\'s request id and status', async () => {
  const { app, lines } = logged();
  const res = await app.request(`${BASE}/batch`, { method: 'POST', headers: { authorization: `Bearer ${editor}`, 'content-type': 'application/json', 'x-request-id': 'boom-3' },
    body: JSON.stringify({ operations: [{ method: 'GET', path: '/tags/t1' }] }) });
  assert.is(res.status, 500);
  const mine = await linesOf(lines, 'boom-3');
  assert.equal(mine.map((l) => [l.level, l.route, l.status]), [[50, `${BASE}/batch`, 500], [30, `${BASE}/batch`, 500]]);
  assert.is(mine[0].error.code, '42703');
});

test('an app given its own `log` gets the cause, and nothing is written', async () => {
  const before = api.logged.length;
  assert.is((await call(api.app, 'GET', '/tags/t1', { bearer: editor })).status, 500);
  assert.is(api.logged.length, before + 1);
  assert.is((api.logged.at(-1) as { code?: string }).code, '42703');
  api.logged.length = before;
});

test('without a logger, a 500 is one JSON line on stderr (not util.inspect\'s dump)', async () => {
  const app = createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET });
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
  let status: number;
  try {
    status = (await app.request(`${BASE}/tags/t1`, { headers: { authorization: `Bearer ${editor}`, 'x-request-id': 'boom-4' } })).status;
  } finally {
    process.stderr.write = write;
  }
  assert.is(status, 500);
  const text = written.join('');
  assert.is(text.split('\n').filter(Boolean).length, 1, text);
  const line = JSON.parse(text);
  assert.equal([line.level, line.msg, line.request_id, line.status, line.error.code], [50, 'request failed', 'boom-4', 500, '42703']);
});

test('a failed file outbox drain (its database client gone) is one error line, with no request\'s fields', async () => {
  const { logger: log, lines } = logger();
  const gone = postgres(api.db.url);
  await gone.end();
  const dir = mkdtempSync(join(tmpdir(), 'error-log-files-'));
  try {
    const files = new Files({ sql: gone, manifest: api.manifest, log: failureLog(log),
      storage: storageFromEnv({ FILES_DIR: dir, FILES_SECRET: 'error-log-files' }, api.manifest.api.basePath) });
    files.committed({ outbox: true }); // a write that queued a file: a drain in the background
    for (let i = 0; i < 200 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(lines.length, 1, JSON.stringify(lines));
    assert.equal([lines[0].level, lines[0].msg, lines[0].error.code, 'request_id' in lines[0]], [50, 'file outbox drain failed', 'CONNECTION_ENDED', false]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('`where`: the first frame in our files of an error of our code; PostgreSQL\'s function lines without the statements it quotes', () => {
  const thrown = (() => { try { JSON.parse('{'); } catch (err) { return err; } })();
  const fields = errorFields(thrown, false);
  assert.is(fields.type, 'SyntaxError');
  assert.match(fields.where ?? '', /^.*\(?test\/server\/error-log\.test\.ts:\d+:\d+\)?$/);
  assert.equal(errorFields('just a string', true), { type: 'string', message: 'just a string' });
  // PostgreSQL's context names the functions, and may quote a statement's text: that only with the stack (debug).
  const where = 'SQL statement "select case\n  when x then 1\n  else 2 end"\nPL/pgSQL function api.dispatch(text,jsonb) line 23 at assignment';
  const pg = { name: 'PostgresError', code: 'XX000', message: 'boom', where, stack: 'PostgresError: boom' };
  assert.equal(errorFields(pg, false), { type: 'PostgresError', code: 'XX000', message: 'boom', where: 'PL/pgSQL function api.dispatch(text,jsonb) line 23 at assignment' });
  assert.is(errorFields(pg, true).where, where);
});

test.run();
