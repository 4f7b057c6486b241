// The upload-intent endpoint of spec 4.1: POST /.well-known/upload with {filename, contentType}
// answers {data: {file_reference, upload_url}}; the bytes then go to upload_url (spec 4.2).
import type { Schema } from './common.ts';
import { operation, success } from './operations.ts';

export const UPLOAD_PATH = '/.well-known/upload';
/** The most characters of an upload intent's filename and contentType (the gateway checks them: server/files/routes.ts). */
export const UPLOAD_FIELD_CHARS = 255;

export const uploadSchemas: Record<string, Schema> = {
  UploadIntentRequest: {
    type: 'object', additionalProperties: false, required: ['filename', 'contentType'],
    properties: {
      filename: { type: 'string', minLength: 1, maxLength: UPLOAD_FIELD_CHARS, description: 'Original file name (no control characters).' },
      contentType: { type: 'string', minLength: 1, maxLength: UPLOAD_FIELD_CHARS, description: 'MIME type; the PUT to upload_url must send it as Content-Type.' },
    },
  },
  UploadIntent: {
    type: 'object', required: ['file_reference', 'upload_url'],
    properties: {
      file_reference: { type: 'string', description: 'Token to put as the file property\'s value in a create or update body.' },
      upload_url: { type: 'string', format: 'uri-reference', description: 'Signed address to PUT the raw bytes to; expires after 15 minutes.' },
      expires_at: { type: 'string', format: 'date-time', description: 'When upload_url stops working.' },
    },
  },
  UploadIntentSingle: { type: 'object', properties: { data: { $ref: '#/components/schemas/UploadIntent' } }, required: ['data'] },
};

export const uploadPath: Schema = {
  post: operation({
    summary: 'Ask for an upload address', operationId: 'createUploadIntent', tag: 'Files',
    description: 'Two-phase upload: (1) this call returns a file_reference and a signed upload_url; (2) PUT the raw bytes to '
      + 'upload_url with the same Content-Type within 15 minutes; (3) send the file_reference as the file property\'s value. '
      + 'The size and type are checked against the property\'s maxSizeInBytes and accepted types (web.fileTypes, else allowedMimeTypes) on attach (422).',
    body: { schema: 'UploadIntentRequest' }, errors: ['413', '415', '422'],
    success: { '201': success('The upload intent.', 'UploadIntentSingle') },
  }),
};
