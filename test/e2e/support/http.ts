// Real HTTP for the end-to-end suites: fetch against the listening gateway, replies read once into
// {status, headers, text, body}, and HS256 tokens signed with the gateway's secret (jose).
import { SignJWT } from 'jose';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: any;
  /** The request path as the server saw it (a problem's `instance`). */
  path: string;
}

export interface CallOptions {
  /** Sent as JSON (Content-Type: application/json). */
  body?: unknown;
  /** Sent as is; `type` gives its Content-Type (none when omitted). */
  raw?: string | Uint8Array | ReadableStream<Uint8Array>;
  type?: string;
  /** A bearer token; null sends no Authorization header; undefined uses the suite's default caller. */
  token?: string | null;
  headers?: Record<string, string>;
}

/**
 * The suites' default caller: an administrator and editor in publishing (Tag create is for editors only),
 * an owner and accountant of organization o1 in billing (Invoice delete is for accountants only), with an
 * example.com email (comments). Scenarios judging the record (owner, stakeholder) still apply to it.
 */
export const DEFAULT_CLAIMS = {
  sub: 'u-admin', email: 'admin@example.com', roles: ['admin', 'editor'], org: 'o1', org_roles: ['owner', 'accountant'],
};

export class Client {
  #defaultToken: string | undefined;

  constructor(
    readonly origin: string,
    readonly basePath: string,
    readonly docsUrl: string,
    readonly secret: string,
  ) {}

  /** A signed token; `expiresIn` is a jose time span ('1h') or a past epoch second for expired tokens. */
  async token(claims: Record<string, unknown> = DEFAULT_CLAIMS, opts: { secret?: string; exp?: number | string } = {}): Promise<string> {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt();
    jwt.setExpirationTime(opts.exp ?? '1h');
    return jwt.sign(new TextEncoder().encode(opts.secret ?? this.secret));
  }

  /** `path` is below the API's base path (`/posts?page=2`). */
  call(method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
    return this.callAbsolute(method, this.basePath + path, opts);
  }

  /** `path` is the whole request path (`/api/other/v1/posts`, `/nothing`). */
  async callAbsolute(method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? await this.defaultToken() : opts.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    let body: string | Uint8Array | ReadableStream<Uint8Array> | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] = 'application/json';
    } else if (opts.raw !== undefined) {
      body = opts.raw;
      if (opts.type !== undefined) headers['Content-Type'] = opts.type;
    }
    const init: RequestInit & { duplex?: 'half' } = { method, headers };
    if (body !== undefined) init.body = body as BodyInit;
    if (body instanceof ReadableStream) init.duplex = 'half';
    const url = this.origin + path;
    const res = await fetch(url, init);
    const text = await res.text();
    let parsed: unknown;
    if (text !== '' && /json/i.test(res.headers.get('content-type') ?? '')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: res.status, headers: res.headers, text, body: parsed, path: new URL(url).pathname };
  }

  get(path: string, opts?: CallOptions) { return this.call('GET', path, opts); }
  post(path: string, body?: unknown, opts: CallOptions = {}) { return this.call('POST', path, { ...opts, ...(body === undefined ? {} : { body }) }); }
  put(path: string, body?: unknown, opts: CallOptions = {}) { return this.call('PUT', path, { ...opts, ...(body === undefined ? {} : { body }) }); }
  patch(path: string, body?: unknown, opts: CallOptions = {}) { return this.call('PATCH', path, { ...opts, ...(body === undefined ? {} : { body }) }); }
  del(path: string, opts?: CallOptions) { return this.call('DELETE', path, opts); }

  private async defaultToken(): Promise<string> {
    this.#defaultToken ??= await this.token();
    return this.#defaultToken;
  }
}

/** Fails with the reply in the message when the status is not `status` (or one of them). */
export function expectStatus(reply: Reply, status: number | number[], what = ''): void {
  const ok = Array.isArray(status) ? status.includes(reply.status) : reply.status === status;
  if (!ok) {
    throw new Error(`${what ? `${what}: ` : ''}expected HTTP ${String(status)}, got ${reply.status} for ${reply.path}: ${reply.text.slice(0, 600)}`);
  }
}

/** The `data` of a successful reply, after checking its status. */
export function dataOf(reply: Reply, status = 200): any {
  expectStatus(reply, status);
  return reply.body?.data;
}
