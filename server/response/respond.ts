// Shapes the HTTP response of a planned call from the function's result: status per action, the
// `data` wrapper, projections, ETag / Last-Modified / Location / Vary headers, 304 and 204 without
// bodies; a bulk create answers its records as a list. Every header is set here, once.
import type { Plan } from '../plan/plan.ts';
import { projector } from './project.ts';
import { OPERATIONS } from '../../compiler/query/operations.ts';
import { responseText } from '../codec/json.ts';
import { DataBytes } from '../query/result-data.ts';
import { compressible } from './compressible.ts';
import { notModified } from './conditions.ts';
import type { ReadValidators } from '../request/preconditions.ts';

interface Single { data: unknown; id?: unknown; etag?: unknown; last_modified?: unknown }
interface Listing { data: unknown; meta: unknown }

const JSON_TYPE = 'application/json';
/** Around a result's data sent as it came (DataBytes). */
const DATA_OPEN = '{"data":', OBJECT_CLOSE = '}';

/**
 * `validators`: the request's If-None-Match and If-Modified-Since (a read may answer 304); `headers`: what every
 * response carries (the request id), a new object the response's own headers are added to.
 */
export function respond(plan: Plan, result: unknown, validators: Partial<ReadValidators>, basePath: string, headers: Record<string, string> = {}): Response {
  // Rows come with wire names (an embedded record's by its own entity); the projection picks from them.
  const project = projector(plan.projection);
  const { action, resource } = plan.endpoint;
  const status: number = OPERATIONS[action].status;
  if (plan.each) { // bulk create: every record, in the order sent
    const results = (result as { results?: Single[] } | null)?.results ?? [];
    return json(status, { data: results.map((r) => project(r.data)) }, result, headers);
  }
  switch (action) {
    case 'list': case 'search': case 'relationList': case 'history': {
      const { data, meta } = result as Listing;
      if (action === 'list') headers.Vary = 'Accept'; // the same URL is the change stream (text/event-stream)
      if (data instanceof DataBytes) return around(status, data, `,"meta":${responseText(meta, result)}}`, headers);
      return json(status, { data: Array.isArray(data) ? data.map(project) : data, meta }, result, headers);
    }
    case 'delete': case 'unlink':
      return new Response(null, { status, headers });
    case 'link': {
      const { data, created } = result as { data: unknown; created?: boolean };
      return json(created ? status : 200, { data }, result, headers);
    }
  }
  const single = result as Single;
  const etag = typeof single.etag === 'string' || typeof single.etag === 'number' ? `"${single.etag}"` : undefined;
  if (etag) headers.ETag = etag;
  if (action === 'read' || action === 'subRead') {
    const stamp = typeof single.last_modified === 'string' ? new Date(single.last_modified) : undefined;
    const modified = stamp && !Number.isNaN(stamp.getTime()) ? stamp : undefined;
    if (modified) headers['Last-Modified'] = modified.toUTCString();
    if (notModified(validators, etag, modified)) return new Response(null, { status: 304, headers });
  }
  if (action === 'create') {
    headers.Location = `${basePath}/${resource.collection}/${encodeURIComponent(String(single.id))}`;
  }
  if (single.data instanceof DataBytes) return around(status, single.data, OBJECT_CLOSE, headers);
  return json(status, { data: project(single.data) }, result, headers);
}

/**
 * `{"data":<data as sent>` and `tail`, as text: its length is known from the bytes. A body built as one Buffer
 * would be an ArrayBuffer per response, and off-heap memory churned at that rate had V8 start a full collection
 * every few hundred milliseconds (a list of 25 rows: ~20 mark-compacts in 8 s against ~10 as text; CPU per request
 * ~8% lower as text, although the rows are decoded and encoded once more).
 */
function around(status: number, data: DataBytes, tail: string, headers: Record<string, string>): Response {
  return json(status, DATA_OPEN + data.text + tail, undefined, headers, DATA_OPEN.length + data.bytes.length + Buffer.byteLength(tail));
}

/**
 * `source` is the function's parsed result: when it holds no exact number, the native serializer writes the
 * body. A body given as text is sent as it is; `length`, its UTF-8 length when the caller knows it.
 */
function json(status: number, body: object | string, source: unknown, headers: Record<string, string>, length?: number): Response {
  const sent = typeof body === 'string' ? body : responseText(body, source);
  length ??= Buffer.byteLength(sent);
  headers['Content-Type'] = JSON_TYPE;
  headers['Content-Length'] = String(length);
  if (compressible(JSON_TYPE, length, 'ETag' in headers)) headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';
  return new Response(sent as BodyInit, { status, headers });
}
