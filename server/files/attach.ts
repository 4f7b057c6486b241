// Attach on create, PUT, PATCH and sub-resource PUT: each file_reference in the body is resolved to the
// caller's intent, its uploaded object copied from tmp/ to uploads/ and the copy checked (exists, type, size).
import { ApiError } from '../problem/types.ts';
import type { Plan } from '../plan/plan.ts';
import type { Call } from '../query/dispatch.ts';
import { setBodyValue } from '../codec/json.ts';
import { essence, normalizeType, writtenFiles, type FileSpec } from './limits.ts';
import { mimeListAccepts } from '../../compiler/model/mime.ts';
import type { Storage, StoredObject } from './storage.ts';

/** An intent api.upload_prepare returned: the caller's, unused, with a copy target reserved. */
interface Intent { token: string; tmp_key: string; location: string; name: string; mime: string }

export interface Attachment {
  /**
   * Deletes the copies after a failed write. Best effort: a reservation made on the pool removes them an hour
   * later anyway; one made in the write's transaction (a batch) went with its rollback.
   */
  undo(): Promise<void>;
}

const unavailable = (err: unknown) => new ApiError('unavailable', 'File storage is not answering; try again later.', {}, { cause: err });

/** Runs a storage call; a failure is 503 (the write is not attempted, or is undone). */
export async function storageCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw unavailable(err);
  }
}

const fileError = (code: string, property: string, rule: string, message: string) =>
  ApiError.custom('validation', code, message, { errors: [{ property, rule, message }] });

const notUploaded = (property: string) => fileError('E_FILE_NOT_UPLOADED', property, 'file',
  `The file for "${property}" was not uploaded, or another write attached it first: PUT its bytes to the upload_url, or upload it again.`);

/**
 * Copies the upload to its location. A tmp/ object that is not there is the client's to fix (422, not 503):
 * it was never PUT, or another write attached the reference meanwhile and its tmp/ object went after that commit.
 */
async function copyUpload(storage: Storage, property: string, intent: Intent, signal: AbortSignal): Promise<void> {
  try {
    await storage.copy(intent.tmp_key, intent.location, signal);
  } catch (err) {
    if (await storageCall(() => storage.head(intent.tmp_key, signal))) throw unavailable(err);
    throw notUploaded(property);
  }
}

/** `property` by its wire name (web.name): the problem is the client's to read. */
function check(property: string, spec: FileSpec, intent: Intent, object: StoredObject | undefined): void {
  if (!object) throw notUploaded(property);
  const stored = normalizeType(object.contentType ?? '');
  if (stored !== intent.mime) {
    throw fileError('E_FILE_TYPE_NOT_ALLOWED', property, 'contentType', `The file for "${property}" was uploaded as "${stored}", not as the declared "${intent.mime}".`);
  }
  // The accepted types (compiler/model/mime.ts: acceptedFileTypes; the model keeps web.fileTypes within allowedMimeTypes).
  const type = essence(intent.mime);
  const accepted = spec.fileTypes;
  if (accepted && !mimeListAccepts(accepted, type)) {
    const rule = spec.allowedMimeTypes && !mimeListAccepts(spec.allowedMimeTypes, type) ? 'allowedMimeTypes' : 'fileTypes';
    throw fileError('E_FILE_TYPE_NOT_ALLOWED', property, rule, `"${property}" accepts ${accepted.join(', ')}, not ${type}.`);
  }
  if (spec.maxSizeInBytes !== undefined && object.size > spec.maxSizeInBytes) {
    throw fileError('E_FILE_TOO_LARGE', property, 'maxSizeInBytes', `The file for "${property}" has ${object.size} bytes; at most ${spec.maxSizeInBytes} are allowed.`);
  }
}

/**
 * Rewrites the plan's body: a reference to the caller's unused intent becomes the stored block
 * {id, location, name, mime} (after the copy and its checks); any other reference becomes {id}, which the
 * SQL accepts only as the file the record already holds (else 422 E_FILE_NOT_UPLOADED). `prepare` runs
 * upload_prepare: on the pool, or on the connection of the transaction the write runs in. `deadline` gives the
 * signal that ends the storage calls at the request's deadline (503); it is asked for only when a file is given
 * (a timer per request that touches no file costs every read).
 */
export async function attachFiles(prepare: (call: Call) => Promise<unknown>, storage: Storage, plan: Plan, caller: Pick<Call, 'identity' | 'ip'>,
  deadline: () => AbortSignal): Promise<Attachment | undefined> {
  const specs = writtenFiles(plan.endpoint);
  const body = plan.args.body as Record<string, unknown> | undefined;
  const given = body ? Object.keys(specs).filter((k) => typeof body[k] === 'string') : [];
  if (!body || given.length === 0) return undefined;
  const signal = deadline();
  const tokens = [...new Set(given.map((k) => body[k] as string))];
  // A call of its own by the same caller: nothing else of the write's call (its data as sent, its share) applies to it.
  const prepared = (await prepare({ identity: caller.identity, ip: caller.ip, fn: 'upload_prepare', args: { tokens } })) as { data: Intent[] };
  const intents = new Map(prepared.data.map((i) => [i.token, i]));

  const copied: string[] = [];
  const undo = async () => {
    await Promise.all(copied.map((key) => storage.delete(key).catch(() => {})));
  };
  try {
    for (const property of given) {
      const intent = intents.get(body[property] as string);
      intents.delete(body[property] as string); // one token, one property: a second use is refused in SQL
      if (!intent) {
        setBodyValue(body, property, { id: body[property] });
        continue;
      }
      const name = plan.wire.wireName(property);
      // The tmp/ object is checked first (an S3 upload address caps no size: a huge one is not copied), then
      // the copy: the address takes PUTs until it expires, so the object may change up to the copy, and the
      // copy is what the record will hold.
      check(name, specs[property]!, intent, await storageCall(() => storage.head(intent.tmp_key, signal)));
      copied.push(intent.location);
      await copyUpload(storage, name, intent, signal);
      check(name, specs[property]!, intent, await storageCall(() => storage.head(intent.location, signal)));
      setBodyValue(body, property, { id: intent.token, location: intent.location, name: intent.name, mime: intent.mime });
    }
  } catch (err) {
    await undo();
    throw err;
  }
  return { undo };
}
