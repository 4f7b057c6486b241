// Requests Node's HTTP parser refuses before the app sees them (headers past the limit, malformed
// request lines) still get a problem document where the socket can take one, never a bare status.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { problemBody } from '../problem/render.ts';
import { ApiError, badRequest } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

export function answerClientErrors(server: Server, docsUrl: string, maxHeaderBytes: number): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const problem = err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headersTooLarge', `The request line and headers exceed ${maxHeaderBytes} bytes (${LIMITS.maxHeaderBytes.env}); send a shorter URL, filter with POST …/search, or a shorter token.`)
      : badRequest('The request could not be parsed as HTTP/1.1.');
    const body = JSON.stringify(problemBody(problem, { docsUrl, instance: '' }));
    socket.end([
      `HTTP/1.1 ${problem.status} ${problem.title}`, 'Content-Type: application/problem+json',
      `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', body,
    ].join('\r\n'));
  });
}
