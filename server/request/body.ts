// Reads a JSON request body: a JSON media type in UTF-8 is required once there are bytes (415), the bytes are
// counted as they stream in and reading stops past the limit (413), and the text must be one object (400),
// or, where a list is accepted (bulk create), an array of objects.
import { ApiError, badRequest } from '../problem/types.ts';
import { exactTwin } from '../codec/json.ts';
import { DEFAULT_LIMITS, LIMITS } from './limits.ts';
import { duplicateMember, textShape } from './json-text.ts';

export const DEFAULT_MAX_BODY_BYTES = DEFAULT_LIMITS.maxBodyBytes;
/** Deeper documents would overflow the stack of whatever walks them next (ajv, JSON.stringify). */
export const MAX_JSON_DEPTH = 100;

/** The parsed object, or undefined when the request carries no body bytes at all. */
export async function readJsonObject(req: Request, maxBytes: number, maxMembers = DEFAULT_LIMITS.maxJsonMembers): Promise<Record<string, unknown> | undefined> {
  return (await readJsonBody(req, maxBytes, maxMembers, false)) as Record<string, unknown> | undefined;
}

/** An object, or an array of objects (the body of a bulk create); undefined without body bytes. */
export async function readJsonObjects(req: Request, maxBytes: number, maxMembers = DEFAULT_LIMITS.maxJsonMembers): Promise<JsonBody | undefined> {
  return readJsonBody(req, maxBytes, maxMembers, true);
}

/** The body's JSON (an object; with `list`, or an array of objects), or undefined when the request carries no body bytes. */
export async function readJsonBody(req: Request, maxBytes: number, maxMembers: number, list: boolean): Promise<JsonBody | undefined> {
  const refusal = typeRefusal(req.headers.get('content-type')); // the 415's detail
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (declared > 0 && refusal) throw unsupported(refusal);
  const coding = req.headers.get('content-encoding');
  if (coding !== null && !/^\s*identity\s*$/i.test(coding)) throw encoded(coding);
  if (declared > maxBytes) throw tooLarge(maxBytes);

  const bytes = await readLimited(req, maxBytes, declared);
  if (bytes === 'too-large') throw refusal ? unsupported(refusal) : tooLarge(maxBytes);
  if (bytes.length === 0) return undefined;
  if (refusal) throw unsupported(refusal);

  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw badRequest('The request body is not valid UTF-8.');
  }
  return decodeJson(text, maxMembers, list);
}

/** A JSON body: one object, or (where a list is accepted) an array of objects. */
export type JsonBody = Record<string, unknown> | Array<Record<string, unknown>>;

/**
 * The JSON text of a body, decoded and checked as every body is (depth, members, duplicate members, finite numbers,
 * exact digits kept): the text of a request's bytes, or of a batch operation's body.
 */
export function decodeJson(text: string, maxMembers: number, list: boolean): JsonBody {
  const shape = textShape(text);
  if (shape.depth > MAX_JSON_DEPTH) throw badRequest(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  let value: unknown;
  try {
    // No reviver: one called for every value costs V8 fifteen times the parse (100 ms for 400,000 numbers).
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (list && Array.isArray(value)) {
    const at = value.findIndex((v) => !isObject(v));
    if (at >= 0) throw badRequest(`Element ${at} of the request body is not a JSON object: a list body holds objects only.`);
  } else if (!isObject(value)) throw badRequest(list ? 'The request body must be a JSON object or an array of objects.' : 'The request body must be a JSON object.');
  // JSON.parse keeps the last of a member named twice: the parsed objects then hold fewer members than the text.
  if (checkValues(value, maxMembers) !== shape.members) {
    const name = duplicateMember(text) ?? '';
    throw badRequest(`The request body names the member "${name.length > 100 ? `${name.slice(0, 100)}…` : name}" twice in one object.`);
  }
  exactTwin(value, text); // one more parse, only where a number needs its digits
  return value as JsonBody;
}

/** A body's text longer than `maxBytes` (in UTF-8) is 413, as a request's bytes would be. */
export function checkBodyBytes(text: string, maxBytes: number): void {
  if (Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
}

/**
 * One walk over the parsed body (a stack, not recursion): each object and array holds at most `maxMembers` (413),
 * and every number is finite (JSON.parse reads 1e400 as Infinity: 400). Returns the members of all its objects.
 */
function checkValues(value: unknown, maxMembers: number): number {
  let objectMembers = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw badRequest('The request body holds a number too large to represent (such as 1e400).');
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    const members = Array.isArray(v) ? v : Object.values(v);
    if (members.length > maxMembers) {
      const [kind, unit] = Array.isArray(v) ? ['an array', 'elements'] : ['an object', 'members'];
      throw new ApiError('payloadTooLarge', `The request body holds ${kind} of ${members.length} ${unit}; `
        + `at most ${maxMembers} are accepted in one (${LIMITS.maxJsonMembers.env}).`);
    }
    if (!Array.isArray(v)) objectMembers += members.length;
    for (const m of members) stack.push(m);
  }
  return objectMembers;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** application/json or any +json type (application/merge-patch+json), parameters aside. */
export function isJsonType(contentType: string): boolean {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media);
}

/**
 * A Content-Type parameter (RFC 9110 5.6.6): its name, then a token or a quoted-string (a quoted `;` is no separator).
 * Not jshttp's content-type: it throws on `application/json;` and a trailing `;`, which clients send.
 */
const PARAMETER = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)/g;

/**
 * Why a body of this Content-Type is refused (415), or undefined when it is read: a JSON type, and no charset but UTF-8
 * (RFC 8259 8.1: JSON is UTF-8; the bytes are decoded as UTF-8, so latin1 or UTF-16 text would silently change).
 * A charset label is resolved as the Encoding Standard does (`utf8`, `"UTF-8"` are UTF-8).
 */
function typeRefusal(type: string | null): string | undefined {
  // Clients send one Content-Type again and again: the last one's answer is kept.
  if (type !== lastType.type) lastType = { type, refusal: refusalOf(type) };
  return lastType.refusal;
}
let lastType: { type: string | null; refusal: string | undefined } = { type: null, refusal: refusalOf(null) };

function refusalOf(type: string | null): string | undefined {
  if (type === null || !isJsonType(type)) return `The request body must be JSON (Content-Type: application/json), not ${type ? `"${type.split(';')[0]}"` : 'untyped'}.`;
  for (const [, name, value] of type.matchAll(PARAMETER)) {
    if (name!.toLowerCase() !== 'charset') continue;
    const label = value!.startsWith('"') ? value!.slice(1, -1).replace(/\\(.)/g, '$1') : value!;
    if (encodingOf(label) !== 'utf-8') return `The request body must be JSON in UTF-8 (RFC 8259 8.1), not charset "${label.slice(0, 40)}": send UTF-8, with charset=utf-8 or none.`;
  }
  return undefined;
}

function encodingOf(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined; // no encoding has this label
  }
}

/** One decoder for every body: `decode` without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body's bytes, at most `maxBytes`. With a Content-Length within the limit the HTTP parser delivers
 * no more than it says, so the body is read at once (the node adapter reads it straight from the socket,
 * without a web stream); otherwise (chunked) it is counted as it streams in and cut off past the limit.
 */
async function readLimited(req: Request, maxBytes: number, declared: number): Promise<Uint8Array | 'too-large'> {
  try {
    return await readBytes(req, maxBytes, declared);
  } catch {
    // The client went away, or the server closed its request for taking too long (answered 408 there).
    throw badRequest('The request body ended before all of it arrived.');
  }
}

async function readBytes(req: Request, maxBytes: number, declared: number): Promise<Uint8Array | 'too-large'> {
  if (Number.isSafeInteger(declared) && declared >= 0 && declared <= maxBytes) {
    // A Request made in-process is framed by no parser: its Content-Length is checked against what came.
    const bytes = new Uint8Array(await req.arrayBuffer());
    return bytes.byteLength > maxBytes ? 'too-large' : bytes;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return 'too-large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const unsupported = (detail: string) => new ApiError('unsupportedMediaType', detail);

/** A compressed body (RFC 7694 3: 415, naming the codings accepted: none but identity). */
const encoded = (coding: string) => new ApiError('unsupportedMediaType',
  `The request body must be sent as it is, without a Content-Encoding ("${coding.slice(0, 40)}" is not accepted).`, { headers: { 'Accept-Encoding': 'identity' } });

const tooLarge = (max: number) => new ApiError('payloadTooLarge', `The request body is larger than the limit of ${max} bytes.`);
