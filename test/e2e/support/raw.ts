// HTTP written on a socket as is, for what fetch would not send: unnormalized paths, oversized or malformed
// headers, a request that never ends. Resolves once the server closes the connection.
import { connect } from 'node:net';

export interface RawReply {
  status: number;
  /** The status line and headers, as sent. */
  head: string;
  type: string;
  /** The parsed JSON body; undefined when it is empty or not JSON. */
  body: any;
  /** Milliseconds from the first byte written to the server's close. */
  ms: number;
}

/** Writes `request` (no FIN: the server answers, then closes, on Connection: close or an error) to `origin`. */
export function rawHttp(origin: string, request: string): Promise<RawReply> {
  const url = new URL(origin);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let data = '';
    socket.on('data', (d) => { data += d.toString('utf8'); });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      let parsed: unknown;
      try { parsed = JSON.parse(body); } catch { parsed = undefined; }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), head, type: /content-type: *([^\r\n]+)/i.exec(head)?.[1] ?? '',
        body: parsed, ms: Date.now() - started,
      });
    });
    socket.write(request);
  });
}
