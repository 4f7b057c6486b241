// The file routes mounted before the API's catch-all: POST {basePath}/.well-known/upload (spec 4.1) and,
// with the local driver, the signed upload and download addresses the gateway serves itself (spec 4.2).
import { Hono, type Context } from 'hono';
import { UPLOAD_FIELD_CHARS } from '../../compiler/openapi/upload.ts';
import { badRequest, fromDatabase, methodNotAllowed, validationFailed, type FieldError } from '../problem/types.ts';
import type { Identity } from '../request/auth.ts';
import { readJsonObject } from '../request/body.ts';
import { refuseAnyQuery } from '../request/query.ts';
import { LocalStorage } from './local.ts';
import { localRoutes } from './local-routes.ts';
import type { Files } from './service.ts';

export interface RouteContext {
  /** The caller's identity from the Authorization header (401 for a bad token). */
  identify(c: Context): Promise<Identity>;
  ip(c: Context): string | null;
  /** Renders an ApiError as a problem document (others as 500, logged). */
  fail(c: Context, err: unknown): Response;
}

const MIME = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;.*)?$/i;
const INTENT_BODY_BYTES = 16 * 1024;

/** {filename, contentType}: 400 for anything but those two keys, 422 listing what is wrong with them. */
function intentBody(body: Record<string, unknown> | undefined): { filename: string; contentType: string } {
  if (!body) throw badRequest('This request needs a JSON object body: {"filename": …, "contentType": …}.');
  const unknown = Object.keys(body).find((k) => k !== 'filename' && k !== 'contentType');
  if (unknown !== undefined) throw badRequest(`Unknown property "${unknown}" in the request body.`);
  const errors: FieldError[] = [];
  const { filename, contentType } = body;
  if (typeof filename !== 'string' || filename.length < 1 || filename.length > UPLOAD_FIELD_CHARS || /\p{Cc}/u.test(filename)) {
    errors.push({ property: 'filename', rule: 'filename', message: `filename must be a string of 1 to ${UPLOAD_FIELD_CHARS} characters without control characters` });
  }
  if (typeof contentType !== 'string' || contentType.length > UPLOAD_FIELD_CHARS || !MIME.test(contentType.trim())) {
    errors.push({ property: 'contentType', rule: 'contentType', message: 'contentType must be a MIME type such as image/png' });
  }
  if (errors.length) throw validationFailed(errors);
  return { filename: filename as string, contentType: contentType as string };
}

export function fileRoutes(files: Files, ctx: RouteContext): Hono {
  const { basePath } = files.manifest.api;
  const app = new Hono();
  app.all(`${basePath}/.well-known/upload`, async (c) => {
    let identity: Identity | undefined;
    try {
      if (c.req.method !== 'POST') throw methodNotAllowed(c.req.method, ['POST']);
      refuseAnyQuery(c.req.url);
      identity = await ctx.identify(c);
      const { filename, contentType } = intentBody(await readJsonObject(c.req.raw, INTENT_BODY_BYTES));
      const intent = await files.intent({ identity, ip: ctx.ip(c) }, filename, contentType, files.origin(c.req.url));
      return c.json({ data: intent }, 201);
    } catch (err) {
      // Past the caller's identity, a failure is the intent's statement's (or storage's): mapped at the boundary.
      return ctx.fail(c, identity ? fromDatabase(err) : err);
    }
  });
  if (files.storage instanceof LocalStorage) {
    app.route('/', localRoutes({ storage: files.storage, basePath, clock: files.clock, maxBytes: files.maxUploadBytes, fail: ctx.fail }));
  }
  return app;
}
