// Small constructors for OpenAPI operations: JSON request bodies, success responses with their
// headers, path parameters typed like the record keys, and the problem responses per kind of action.
import { status } from './verbs.ts';
import type { PropertyManifest } from '../manifest/types.ts';
import { errorResponses, header, paramRef, ref, type Schema } from './common.ts';

export type Extra = Parameters<typeof errorResponses>[0];

export interface OperationSpec {
  summary: string;
  operationId: string;
  tag: string;
  parameters?: Schema[];
  /** `list`: the body is an array of such objects (bulk create). */
  body?: { schema: string; required?: boolean; mergePatch?: boolean; list?: boolean };
  success: Record<string, Schema>;
  errors?: Extra;
  description?: string;
}

export function operation(o: OperationSpec): Schema {
  const body = o.body && {
    required: o.body.required ?? true,
    content: {
      'application/json': { schema: o.body.list ? listBody(ref(o.body.schema)) : ref(o.body.schema) },
      ...(o.body.mergePatch ? { 'application/merge-patch+json': { schema: ref(o.body.schema) } } : {}),
    },
  };
  return {
    summary: o.summary, operationId: o.operationId, tags: [o.tag],
    ...(o.description ? { description: o.description } : {}),
    ...(o.parameters?.length ? { parameters: o.parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...o.success, ...errorResponses(o.errors ?? []) },
  };
}

export const BULK_DESCRIPTION = 'Bulk create: every record in one statement, all or nothing (a failure names the element\'s `index`); at most MAX_BATCH_OPERATIONS (default 100) records.';

/** An array of objects created together (all or nothing; at most MAX_BATCH_OPERATIONS). */
export function listBody(one: Schema): Schema {
  return { type: 'array', minItems: 1, items: one, description: BULK_DESCRIPTION };
}

/** The object schema of a body that `listBody` made (its items), or undefined for any other. */
export function listBodyItem(s: Schema | undefined): Schema | undefined {
  return s?.type === 'array' && s.description === BULK_DESCRIPTION ? s.items as Schema : undefined;
}

/** A JSON success response; `headers` names components (ETag, LastModified, Location). */
export function success(description: string, schema?: string, headers: string[] = []): Schema {
  return {
    description,
    ...(headers.length ? { headers: Object.fromEntries(headers.map((h) => [h === 'LastModified' ? 'Last-Modified' : h, header(h)])) } : {}),
    ...(schema ? { content: { 'application/json': { schema: ref(schema) } } } : {}),
  };
}

export const STREAM_DESCRIPTION = 'With `Accept: text/event-stream` this URL is the change stream of the collection (design 9): every created, '
  + 'updated, deleted, restored, linked and unlinked record the caller may read, as its GET shows it, narrowed by the filters and the parent '
  + '(no paging or sort; `include`/`exclude` project). Each event\'s `data:` is a ChangeEvent. Resume with Last-Event-ID (or `after`). '
  + 'A heartbeat comment comes every EVENTS_HEARTBEAT_MS; the stream ends when the token expires; EVENTS_MAX_STREAMS_PER_CALLER streams per caller (429 past it).';

/**
 * A list's 200 with the change stream named beside the JSON page: in an extension, not as a second media type of
 * `content`, which typed clients (openapi-typescript) would make every list's answer a union with a string.
 */
export function changeStream(response: Schema): Schema {
  return { ...response, 'x-event-stream': { mediaType: 'text/event-stream', event: ref('ChangeEvent'),
    description: 'Server-sent events, each with `id:` (its log position), `event:` (the action, or reset) and `data:` (a ChangeEvent).' } };
}

export const notModified = { '304': { description: 'Not Modified: the If-None-Match tag matches, or nothing changed since If-Modified-Since.', headers: { ETag: header('ETag') } } };
export const noContent = (what: string) => ({ [status('delete')]: { description: `${what}; no body.` } });

/** A path parameter holding a record key of the given key property. */
export function keyParameter(name: string, key: PropertyManifest | undefined, description: string): Schema {
  const schema = key?.type === 'Number' ? { type: 'integer', ...(key.format === 'int32' || key.format === 'int64' ? { format: key.format } : {}) } : { type: 'string' };
  return { name, in: 'path', required: true, description, schema };
}

export const preconditions = [paramRef('IfMatch'), paramRef('IfUnmodifiedSince')];
/** A read's preconditions (RFC 9110 13.2.2): the write ones (412), then If-None-Match / If-Modified-Since (304). */
export const readPreconditions = [...preconditions, paramRef('IfNoneMatch'), paramRef('IfModifiedSince')];
/** Writes sent with POST or PATCH (server/request/idempotency.ts). */
export const idempotent = [paramRef('IdempotencyKey')];
export const pascal = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
