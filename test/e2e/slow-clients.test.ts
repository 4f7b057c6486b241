// Clients that send a request too slowly (headers trickled, a body that stops halfway, an upload that
// stalls): a 408 problem document once HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS pass, no 5xx logged, and
// every other caller served meanwhile.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { rawHttp, type RawReply } from './support/raw.ts';
import { intent } from '../files/support.ts';
import { limitsFromEnv } from '../../server/request/limits.ts';

const HEADERS_MS = 400, REQUEST_MS = 1_000;
let api: RunningApi;

test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS } });
});
test.after(async () => api?.close());

/** Writes `head` on a raw socket and never finishes the request: what the server answered, and when. */
const stalled = (head: string) => rawHttp(api.origin, head);

/** A 408 problem document naming the limit that ran out. */
function isTimeout(answer: RawReply, variable: string): void {
  assert.is(answer.status, 408, JSON.stringify(answer));
  assert.is(answer.type, 'application/problem+json');
  assert.equal([answer.body?.status, answer.body?.code, answer.body?.title], [408, 'E_REQUEST_TIMEOUT', 'Request Timeout']);
  assert.is(answer.body?.type, `${api.docsUrl}/errors/request-timeout`);
  assert.match(answer.body?.detail, variable);
}

test('headers trickled past HEADERS_TIMEOUT_MS: 408, while other callers are served', async () => {
  const slow = stalled(`GET ${api.basePath}/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: a`);
  for (let i = 0; i < 5; i++) expectStatus(await api.get('/tags'), 200);
  const answer = await slow;
  isTimeout(answer, 'HEADERS_TIMEOUT_MS');
  assert.ok(answer.ms >= HEADERS_MS && answer.ms < HEADERS_MS + 2_000, `answered after ${answer.ms} ms`);
});

test('a JSON body that stops halfway: 408 after REQUEST_TIMEOUT_MS, and no 5xx logged', async () => {
  const token = await api.token({ sub: 'u-slow', roles: ['admin'] });
  const answer = await stalled(`POST ${api.basePath}/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n`
    + 'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"slug":"slo');
  isTimeout(answer, 'REQUEST_TIMEOUT_MS');
  assert.ok(answer.ms >= REQUEST_MS, `answered after ${answer.ms} ms`);
  await new Promise((r) => setTimeout(r, 100)); // the handler's read ends once the server gave up on it
  assert.equal(api.serverErrors, []);
  const [row] = await api.db.sql`select count(*)::int as n from app.tags where slug like 'slo%'`;
  assert.is(row!.n, 0, 'nothing written');
});

test('a file upload that stalls: 408, and no 5xx logged', async () => {
  const upload = dataOf(await intent(api, 'scan.pdf', 'application/pdf'), 201);
  const url = new URL(upload.upload_url);
  const answer = await stalled(`PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\n`
    + 'Content-Length: 1000\r\n\r\n%PDF-1.4\n');
  isTimeout(answer, 'REQUEST_TIMEOUT_MS');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(api.serverErrors, []);
});

test('HEADERS_TIMEOUT_MS may not exceed REQUEST_TIMEOUT_MS', () => {
  assert.throws(() => limitsFromEnv({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' }), /HEADERS_TIMEOUT_MS \(5000\) may not exceed REQUEST_TIMEOUT_MS \(1000\)/);
  assert.is(limitsFromEnv({ HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1000' }).requestTimeoutMs, 1000);
});

test.run();
