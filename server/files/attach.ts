// Attach on create, PUT, PATCH and sub-resource PUT: each file_reference in the body is resolved to the
// caller's intent, its uploaded object checked (exists, type, size) and copied from tmp/ to uploads/.
import { ApiError } from '../problem/types.ts';
import type { Plan } from '../plan/plan.ts';
import type { Target } from '../pg/pools.ts';
import { dispatch, type Call } from '../query/dispatch.ts';
import { setBodyValue } from '../query/json.ts';
import { essence, normalizeType, writtenFiles, type FileSpec } from './limits.ts';
import type { Storage, StoredObject } from './storage.ts';

/** An intent api.upload_prepare returned: the caller's, unused, with a copy target reserved. */
interface Intent { token: string; tmp_key: string; location: string; name: string; mime: string }

export interface Attachment {
  /** Deletes the copies after a failed write (best effort: the reservation removes them later anyway). */
  undo(): Promise<void>;
}

/** Runs a storage call; a failure is 503 (the write is not attempted, or is undone). */
export async function storageCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new ApiError('unavailable', 'File storage is not answering; try again later.', {}, { cause: err });
  }
}

const fileError = (code: string, property: string, rule: string, message: string) =>
  ApiError.custom('validation', code, message, { errors: [{ property, rule, message }] });

/** `property` by its wire name (web.name): the problem is the client's to read. */
function check(property: string, spec: FileSpec, intent: Intent, object: StoredObject | undefined): void {
  if (!object) {
    throw fileError('E_FILE_NOT_UPLOADED', property, 'file', `The file for "${property}" was not uploaded: PUT its bytes to the upload_url first.`);
  }
  const stored = normalizeType(object.contentType ?? '');
  if (stored !== intent.mime) {
    throw fileError('E_FILE_TYPE_NOT_ALLOWED', property, 'contentType', `The file for "${property}" was uploaded as "${stored}", not as the declared "${intent.mime}".`);
  }
  if (spec.allowedMimeTypes && !spec.allowedMimeTypes.map(essence).includes(essence(intent.mime))) {
    throw fileError('E_FILE_TYPE_NOT_ALLOWED', property, 'allowedMimeTypes', `"${property}" accepts ${spec.allowedMimeTypes.join(', ')}, not ${essence(intent.mime)}.`);
  }
  if (spec.maxSizeInBytes !== undefined && object.size > spec.maxSizeInBytes) {
    throw fileError('E_FILE_TOO_LARGE', property, 'maxSizeInBytes', `The file for "${property}" has ${object.size} bytes; at most ${spec.maxSizeInBytes} are allowed.`);
  }
}

/**
 * Rewrites the plan's body: a reference to the caller's unused intent becomes the stored block
 * {id, location, name, mime} (after the checks and the copy); any other reference becomes {id}, which the
 * SQL accepts only as the file the record already holds (else 422 E_FILE_NOT_UPLOADED).
 */
export async function attachFiles(sql: Target, storage: Storage, plan: Plan, call: Call): Promise<Attachment | undefined> {
  const specs = writtenFiles(plan.endpoint);
  const body = plan.args.body as Record<string, unknown> | undefined;
  const given = body ? Object.keys(specs).filter((k) => typeof body[k] === 'string') : [];
  if (!body || given.length === 0) return undefined;
  const tokens = [...new Set(given.map((k) => body[k] as string))];
  const prepared = (await dispatch(sql, { ...call, fn: 'upload_prepare', args: { tokens } })) as { data: Intent[] };
  const intents = new Map(prepared.data.map((i) => [i.token, i]));

  const chosen: Array<[string, Intent]> = [];
  for (const property of given) {
    const intent = intents.get(body[property] as string);
    intents.delete(body[property] as string); // one token, one property: a second use is refused in SQL
    if (!intent) {
      setBodyValue(body, property, { id: body[property] });
      continue;
    }
    check(plan.wire.wireName(property), specs[property]!, intent, await storageCall(() => storage.head(intent.tmp_key)));
    chosen.push([property, intent]);
  }
  const copied: string[] = [];
  const undo = async () => {
    await Promise.all(copied.map((key) => storage.delete(key).catch(() => {})));
  };
  try {
    for (const [property, intent] of chosen) {
      copied.push(intent.location);
      await storageCall(() => storage.copy(intent.tmp_key, intent.location));
      setBodyValue(body, property, { id: intent.token, location: intent.location, name: intent.name, mime: intent.mime });
    }
  } catch (err) {
    await undo();
    throw err;
  }
  return { undo };
}
