// The batch endpoint (POST /batch): operations run in one transaction, all or nothing; a later one may use
// an earlier result through `$<n>.<path>` references. Described here once for the OpenAPI document.
import { ref, type Schema } from './common.ts';
import { operation, success } from './operations.ts';

export const BATCH_PATH = '/batch';

export const batchSchemas: Record<string, Schema> = {
  BatchOperation: {
    type: 'object', additionalProperties: false, required: ['method', 'path'],
    properties: {
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
      path: { type: 'string', pattern: '^/', description: 'Below the base path (`/posts/1?include=id`), or with it. A segment or query value `$<n>.<path>` is taken from operation n\'s response body.' },
      body: { description: 'The JSON body, as the request alone would send it. A string value `$<n>.<path>` stands for the value at that path of operation n\'s response body (n from 1); `$$` starts a literal `$`.' },
      headers: {
        type: 'object', additionalProperties: false,
        properties: { 'If-Match': { type: 'string' }, 'If-Unmodified-Since': { type: 'string' } },
        description: 'Preconditions, as on the request alone.',
      },
    },
  },
  BatchRequest: {
    type: 'object', additionalProperties: false, required: ['operations'],
    properties: {
      operations: { type: 'array', minItems: 1, items: ref('BatchOperation'), description: 'At most MAX_BATCH_OPERATIONS (default 100); more is 413.' },
    },
  },
  BatchResult: {
    type: 'object', required: ['status', 'headers', 'body'],
    properties: {
      status: { type: 'integer', minimum: 200, maximum: 299 },
      headers: {
        type: 'object',
        properties: { ETag: { type: 'string' }, Location: { type: 'string' }, 'Last-Modified': { type: 'string' } },
        additionalProperties: false,
      },
      body: { description: 'The response body the request alone would have had; null for 204.' },
    },
  },
  BatchResponse: {
    type: 'object', required: ['results'],
    properties: { results: { type: 'array', items: ref('BatchResult'), description: 'One per operation, in order.' } },
  },
};

export const batchPath: Schema = {
  post: operation({
    summary: 'Run several operations atomically', operationId: 'runBatch', tag: 'Batch',
    description: 'The operations run in order in one transaction, each exactly as its own request would (access rules, '
      + 'preconditions, validation, files). All succeed (200, one result each) or none is kept: the answer is then the first '
      + 'failing operation\'s problem document, with its HTTP status and `operation` (its number, from 1). Upload, document '
      + 'and batch paths are not operations (400). An operation\'s body with its references resolved is held to MAX_BODY_BYTES '
      + '(413) and its path to MAX_HEADER_BYTES (431); the answers together to MAX_BATCH_RESPONSE_BYTES (413, rolled back).',
    body: { schema: 'BatchRequest' }, errors: ['409', '412', '413', '415', '422'],
    success: { '200': success('Every operation succeeded and was committed.', 'BatchResponse') },
  }),
};
