// Which answers may go compressed (server/http/compression.ts compresses them): said here, where a response is
// shaped, so it says `Vary: Accept-Encoding` exactly when the compression middleware may compress it.
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/compress';

/** No body under 1 KB is compressed. */
export const THRESHOLD = 1024;

/**
 * Whether a response of this type and length may be sent compressed, and so says `Vary: Accept-Encoding`
 * to every client (whether this one accepts compression or not). An ETagged response never is.
 */
export const compressible = (type: string | null | undefined, length: number, etagged: boolean): boolean =>
  !etagged && length >= THRESHOLD && !!type && COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type);

