// Requests Node's HTTP server refuses before the app sees them (headers past the limit, malformed request
// lines, a request not received in time, CONNECT, a body announced too large) still get a problem document.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { problemText } from '../problem/render.ts';
import { ApiError, badRequest } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';
import type { RequestLimits } from '../request/limits.ts';

/** The limits the HTTP server itself enforces, before the app sees a request. */
export type ServerLimits = Pick<RequestLimits, 'maxHeaderBytes' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'maxConnectionsPerClient' | 'maxConnections' | 'maxBodyBytes'>;

/** How long a refused client may go on sending (its bytes are read and dropped) before the socket closes. */
const LINGER_MS = 5_000;

export function answerClientErrors(server: Server, docsUrl: string, limits: ServerLimits): void {
  const answered = new WeakSet<Socket>();
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (answered.has(socket)) return; // Node reports later chunks of a refused request again
    answered.add(socket);
    const responding = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (!socket.writable || responding || err.code === 'ECONNRESET' || err.code === 'EPIPE') {
      socket.destroy();
      return;
    }
    const problem = err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headersTooLarge', `The request line and headers exceed ${limits.maxHeaderBytes} bytes (${LIMITS.maxHeaderBytes.env}); send a shorter URL, filter with POST …/search, or a shorter token.`)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('requestTimeout', `The request did not arrive in time: its headers are due within ${limits.headersTimeoutMs} ms (${LIMITS.headersTimeoutMs.env}), `
          + `all of it within ${limits.requestTimeoutMs} ms (${LIMITS.requestTimeoutMs.env}).`)
        : badRequest('The request could not be parsed as HTTP/1.1.');
    answerAndClose(socket, problem, docsUrl, [], requestPath((err as { rawPacket?: unknown }).rawPacket));
  });
  // CONNECT (a proxy's method) never reaches the app: Node hands it over as a bare socket, closed unanswered.
  server.on('connect', (req: { method?: string }, socket: Socket) => {
    const problem = new ApiError('methodNotAllowed', `${req.method ?? 'CONNECT'} is not served here: this is an API, not a proxy.`);
    answerAndClose(socket, problem, docsUrl, ['Allow: ']); // no method is allowed on a proxy's target
  });
}

/**
 * `Expect: 100-continue`: a client asks before sending its body. One whose Content-Length passes `largestBody` (the
 * most any route takes) is answered 413 at once, so it never sends the body; the others are told to go on. Any other
 * expectation cannot be met (RFC 9110 10.1.1): 417, as a problem document (Node's own answer has no body).
 */
export function answerExpectations(server: Server, docsUrl: string, largestBody: number): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (Number(req.headers['content-length']) > largestBody) {
      answerBeforeBody(req, res, new ApiError('payloadTooLarge', `The request body is larger than the limit of ${largestBody} bytes.`), docsUrl);
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const detail = `The expectation "${String(req.headers.expect).slice(0, 100)}" cannot be met: only "Expect: 100-continue" is understood.`;
    answerBeforeBody(req, res, new ApiError('expectationFailed', detail), docsUrl);
  });
}

/** A problem answered before the request's body was read: the connection closes after it. */
function answerBeforeBody(req: IncomingMessage, res: ServerResponse, problem: ApiError, docsUrl: string): void {
  const { text: body, contentType } = problemText(problem, { docsUrl, instance: (req.url ?? '').split('?')[0]! });
  res.shouldKeepAlive = false;
  res.writeHead(problem.status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The path of the request line at the start of the bytes Node's parser refused, when that line arrived whole
 * and names an origin-form path (a problem's `instance`); otherwise undefined, and the problem has no instance.
 */
function requestPath(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = /^[A-Z]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]\r?\n/.exec(raw.toString('latin1'));
  return line ? line[1]!.split('?')[0] : undefined;
}

/** Writes the problem as a whole HTTP/1.1 answer on the socket, then closes it once the client stopped sending. */
function answerAndClose(socket: Socket, problem: ApiError, docsUrl: string, headers: string[] = [], instance?: string): void {
  const { text: body, contentType } = problemText(problem, { docsUrl, ...(instance ? { instance } : {}) });
  socket.end([
    `HTTP/1.1 ${problem.status} ${problem.title}`, `Content-Type: ${contentType}`, ...headers,
    `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', body,
  ].join('\r\n'));
  // Unread bytes at close would reset the connection before the client reads the answer: drain them.
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
